"""The hand-off from the model to the tuner: a model-written kernel whose front matter declares
tunable parameters (the format reference kernels use) has its space searched before the model is
asked again.

The model's kernel is judged at its declared defaults first. Once the harness accepted it (correct
on every shape, honest), the next proposals are points of its space chosen by the tuner's TPE search
over a weighted objective (the weighted geometric mean of its times over the visible shapes, what
the accept step compares), each a candidate judged and compared against the incumbent like any
other, so the kernel's best point is the one promoted. A dropout ends the hand-off (the stalled
direction is abandoned). Everything is read from the context and the recorded calls, so a resumed
run proposes the same points.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any

from aka.errors import SpecError
from aka.propose.tuner import Family, ask_point
from aka.spec.candidate import Candidate, module_constants
from aka.spec.kernel import KernelMeta, parse_kernel_meta
from aka.spec.memory import Proposal, ProposalContext, Trial

TUNE_POINTS = 4
"""Points of a model kernel's space tried (beyond its defaults) before the model is asked again."""


def tunable(source: str, ctx: ProposalContext) -> tuple[KernelMeta | None, str]:
    """(the kernel's front matter when it declares a usable space, else None; why not, or '')."""
    try:
        doc = ast.get_docstring(ast.parse(source), clean=False)
    except SyntaxError:
        return None, ""
    if not doc or not doc.lstrip().startswith("---"):
        return None, ""                                    # no front matter: nothing declared
    op = ctx.op
    try:
        meta = parse_kernel_meta(source, "the model's kernel", fill={
            "op": op.get("name", ""), "strategy": "llm", "dsl": op.get("backend", "triton")})
    except SpecError as exc:
        return None, f"its front matter was not used: {exc}"
    if not meta.params:
        return None, ""
    missing = sorted(set(meta.params) - set(module_constants(source)))
    if missing:
        return None, (f"its declared params {missing} are not module-level constants (`NAME = value`), "
                      "so the tuner cannot set them")
    for name, p in meta.params.items():
        bad = [v for v in p.values if not isinstance(v, (int, float, bool, str))]
        if bad:
            return None, f"param {name} has values {bad} (only int, float, bool and str can be set)"
    return meta, ""


@dataclass(frozen=True)
class Handoff:
    """The model's kernel under tuning: its accepted trial at the defaults and the points since."""

    base: Trial
    family: Family
    points: list[Trial]


def current(ctx: ProposalContext, source_of, epoch_of) -> Handoff | None:
    """The hand-off in progress, if any: the latest model-written candidate was accepted at its
    defaults, declares a space, and no dropout came since (`source_of(trial)`: its source or None;
    `epoch_of(trial)`: the dropout count when it was proposed)."""
    base = next((t for t in reversed(ctx.trials) if t.origin == "llm"), None)
    if base is None or base.status != "accepted" or epoch_of(base) != ctx.dropouts:
        return None
    source = source_of(base)
    if source is None:
        return None
    meta, _ = tunable(source, ctx)
    if meta is None or Candidate(source, meta.defaults()).hash != base.candidate:
        return None
    points = [t for t in ctx.trials if t.origin == "tuner" and t.family == base.family
              and Candidate(source, t.params).hash == t.candidate]
    return Handoff(base, Family(base.family, meta, source), points)


def propose_point(h: Handoff, ctx: ProposalContext, budget: int = TUNE_POINTS) -> Proposal | None:
    """The next point of the kernel's space, or None once `budget` points were tried or none is left:
    the points its front matter declares first, in their order (whatever shapes they name: the
    hand-off judges every shape), then TPE's."""
    if len(h.points) >= budget:
        return None
    tried = {t.candidate for t in ctx.trials}
    weights = {s["id"]: float(s.get("weight", 1.0)) for s in ctx.op.get("shapes", [])}
    shapes = sorted(h.base.times_us)
    params = h.family.first_untried(h.family.meta.points_for(), tried)   # every shape is judged here
    if params is None:
        params = ask_point(h.family, ctx, tried, [h.base, *h.points], lambda t: _objective(t, shapes, weights))
    if params is None:
        return None
    k = len(h.points) + 1
    parent = ctx.incumbent.hash if ctx.incumbent else None
    space = len(h.family.space())
    cand = h.family.candidate(params, parent, f"tune {h.base.version}'s declared space (point {k} of {budget})")
    cand = Candidate(cand.source, cand.params, "tuner", f"{h.base.version}-tune{k}", parent, cand.rationale,
                     h.base.family)
    changed = {n: v for n, v in cand.params.items() if h.family.meta.defaults().get(n) != v}
    return Proposal(cand, change=f"{h.base.version} (the model's kernel) at {changed or params}",
                    hypothesis=f"a better point of the space the model declared for {h.base.version} "
                               f"(TPE over {space} points, weighted over the visible shapes)",
                    meta={"handoff": {"from": h.base.version, "point": k, "budget": budget, "space": space}})


def _objective(t: Trial, shapes: list[str], weights: dict[str, float]) -> float | None:
    """Weighted mean log time over the shapes the kernel was first measured at (None: failed)."""
    if t.status != "accepted" or any(s not in t.times_us or t.times_us[s] <= 0 for s in shapes):
        return None
    total = sum(weights.get(s, 1.0) for s in shapes)
    return sum(weights.get(s, 1.0) * math.log(t.times_us[s]) for s in shapes) / total if total else None


def defaults_of(source: str, ctx: ProposalContext) -> tuple[dict[str, Any], str]:
    """The parameter point a model-written kernel is first judged at: its declared defaults when
    its space is usable ({} otherwise), and why it is not tunable ('' when it is or declares none)."""
    meta, why = tunable(source, ctx)
    return (meta.defaults() if meta else {}), why
