"""The tuner under map-elites: the same reference-kernel families, aimed at a directive's target cell.

Its cells are kernel families x parameter regions: a point's cell is the descriptor of the family's
source at that point (a parameter such as ROWS can move it between levels) with the niche
'<family>@<region>'. Per mode:
- seed: the next unscreened family at its defaults;
- improve: one parameter of the parent changed, staying in its cell (a mutation);
- axis / weakest-axis / all-axes / fill-empty: an untried point whose levels (and niche, when the
  target names one) match the target, nearest the parent's parameters in its own family, else in
  the family measured fastest; a family never measured starts nearest an inspiration's parameters;
- combine: the per-shape dispatcher of the measured winners (the greedy tuner's dispatch step).
Without a directive it is the greedy tuner. It keeps no state: everything comes from the context.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from aka.propose.descriptors import describe, region
from aka.propose.tuner import Family, Tuner
from aka.spec.memory import Proposal, ProposalContext
from aka.spec.search import Cell, Directive

MAX_POINTS = 512
"""Points of a family's space considered (a larger space is sampled, seeded by the family)."""


class QDTuner(Tuner):
    """Template-parameter search that follows map-elites directives."""

    focuses = False
    """Every point is judged at every shape: the archive ranks candidates over all of them."""

    def __init__(self, *args: Any, **kw: Any):
        super().__init__(*args, **kw)
        self._points: dict[str, list[tuple[dict[str, Any], str, tuple[int, int, int]]]] = {}

    def propose(self, ctx: ProposalContext) -> Proposal | None:
        d: Directive | None = getattr(ctx, "directive", None)
        if d is None:
            return super().propose(ctx)
        families = self.families(ctx)
        tried = {t.candidate for t in ctx.trials}
        parent = ctx.incumbent.hash if ctx.incumbent else None
        if d.mode == "seed":
            found = self._screen(ctx, families, tried, parent)
        elif d.mode == "combine":
            found = self._dispatch(ctx, families, tried, parent)
        else:
            found = self._toward(ctx, d, families, tried)
        return found or self._toward(ctx, None, families, tried) or super().propose(ctx)

    def reachable(self, ctx: ProposalContext) -> list[Cell]:
        """Every cell a family can reach: one per (levels, family@region) of its space."""
        seen, out = set(), []
        for fam in self.families(ctx):
            for _, reg, levels in self.points(fam):
                key = (levels, f"{fam.key}@{reg}")
                if key not in seen:
                    seen.add(key)
                    out.append(Cell(*levels, bottleneck="unknown", niche=key[1]))
        return out

    def points(self, fam: Family) -> list[tuple[dict[str, Any], str, tuple[int, int, int]]]:
        """(parameter point, region, levels) of a family's space, defaults first."""
        if fam.key not in self._points:
            space = {k: tuple(p.values) for k, p in fam.meta.params.items()}
            names = sorted(space)
            combos = [dict(zip(names, c)) for c in itertools.product(*(space[n] for n in names))]
            if len(combos) > MAX_POINTS:
                combos = random.Random(fam.key).sample(combos, MAX_POINTS)
            full = [{**fam.meta.defaults(), **c} for c in combos]
            full.sort(key=lambda p: p != fam.meta.defaults())
            self._points[fam.key] = [(p, region(space, p), describe(fam.source, p).levels) for p in full]
        return self._points[fam.key]

    def _toward(self, ctx: ProposalContext, d: Directive | None, families: list[Family],
                tried: set[str]) -> Proposal | None:
        """The untried point nearest the directive's target (any untried point without one)."""
        target = Cell.parse(d.target) if d is not None and d.target else None
        home = ctx.incumbent.family if ctx.incumbent is not None else ""
        home_params = ctx.incumbent.params if ctx.incumbent is not None else {}
        speed = _family_speed(ctx)
        inspired = {e["version"]: c.params for e, c in getattr(ctx, "inspirations", [])}
        options = []
        for fam in families:
            if fam.key in ctx.avoid_families and (d is None or d.mode != "improve"):
                continue
            for params, reg, levels in self.points(fam):
                if fam.candidate(params, None, "").hash in tried:
                    continue
                niche = f"{fam.key}@{reg}"
                off = sum(abs(a - b) for a, b in zip(levels, target.levels)) if target else 0
                wrong_niche = bool(target and target.niche and target.niche != niche)
                near = _hamming(params, home_params) if fam.key == home else min(
                    [_hamming(params, p) for p in inspired.values()] or [0]) + 10
                options.append(((off, wrong_niche, fam.key != home, near, speed.get(fam.key, math.inf), fam.key),
                                fam, params, reg, levels))
        if not options:
            return None
        options.sort(key=lambda o: o[0])
        _, fam, params, reg, levels = options[0]
        parent = ctx.incumbent.hash if ctx.incumbent else None
        mode = d.mode if d is not None else "explore"
        cell = Cell(*levels, niche=f"{fam.key}@{reg}").key.split(":")[0]
        cand = fam.candidate(params, parent, f"{mode}: {fam.key} at {params} (levels {cell}, region {reg})")
        aim = f"toward {d.target}" if d is not None and d.target else "an untried point"
        return Proposal(cand, change=f"{mode} {aim}: {fam.key} at {params}",
                        hypothesis=f"{fam.key} in region {reg} reaches levels {cell}; "
                                   f"strategy '{fam.meta.strategy}'")


def _hamming(a: dict[str, Any], b: dict[str, Any]) -> int:
    return sum(1 for k in a if k in b and a[k] != b[k]) + sum(1 for k in a if k not in b)


def _family_speed(ctx: ProposalContext) -> dict[str, float]:
    """Family -> its best mean log time over the shapes it was measured at (lower is faster)."""
    out: dict[str, float] = {}
    for t in ctx.trials:
        if t.status == "accepted" and t.times_us:
            value = sum(math.log(us) for us in t.times_us.values()) / len(t.times_us)
            out[t.family] = min(out.get(t.family, math.inf), value)
    return out
