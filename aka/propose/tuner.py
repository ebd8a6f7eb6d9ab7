"""The embedded tuner: the no-LLM proposer. It searches the operator's reference kernels and their
declared parameter spaces, per shape, and emits a per-shape dispatcher of the winners.

Order of work, each step one candidate:
0. promote: when one configuration judged only in focused trials is fastest at every shape, that
   kernel judged in full (a copy whose source says so), so it can replace the incumbent at once;
1. screen: every eligible kernel family at its default parameters (best-ranked by retrieval first).
   Until there is an incumbent a screen is judged in full; after that, at the visible shapes the
   incumbent was judged at, with no held-out shape and no comparison (a focused trial over every
   shape, the first rung of halving): a family is compared only once it has won something. When
   the families screened so far already win different shapes by a predicted weighted gain over
   the incumbent above EARLY_DISPATCH_GAIN, their dispatcher comes before the next screen, so a
   short session (`--time-limit`) ends with the winners combined rather than one screen further;
2. dispatch: when different (family, parameters) win different shapes, one dispatcher of them;
3. tune: for the shape next in turn (by weight; two turns in three go to the shapes still behind a
   baseline, when any are), the family that wins it, a parameter point asked
   from Optuna's TPE sampler fitted on that family's measured times at that shape (a Bayesian
   optimizer; after a dropout a random sampler, away from the families to avoid), after the points
   the kernel's front matter declares for that shape (`points`, its author's first guesses). The point is
   judged at that shape alone (a focused trial, `Proposal.focus`: the first rung of halving over
   shapes); it is never promoted itself, and a point that wins its shape enters the next
   dispatcher, which is judged at every shape, held-out ones included, and compared.
It keeps no state between calls: everything comes from the context's trials, so a resumed or
replayed session proposes exactly what the original did.
"""

from __future__ import annotations

import ast
import itertools
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from aka.errors import SpecError
from aka.propose.buckets import BUCKET, NEAREST, UnseenRule, choose_unseen_rule
from aka.propose.buckets import key as config_key
from aka.propose.dispatch import Bucket, Unseen, build_dispatcher
from aka.spec.candidate import Candidate
from aka.spec.kernel import KernelMeta, read_kernel_meta
from aka.spec.memory import Proposal, ProposalContext, Trial

DISPATCH_MIN_GAIN = 0.02
"""A dispatcher is proposed only when its predicted weighted gain over the incumbent exceeds this."""
EARLY_DISPATCH_GAIN = 0.05
"""Before every family is screened, a dispatcher is proposed only above this predicted gain: a full
evaluation and a comparison cost about two screens, so a small gain waits for the screen to end."""
LAG_DISPATCH_GAIN = 0.02
"""Once the screen is over, a dispatcher whose weighted gain is below DISPATCH_MIN_GAIN is still
proposed when it moves a shape still behind a baseline to a configuration this much faster there
than the incumbent's time: the comparison promotes a gain beyond noise at one shape with no loss
elsewhere (`aka.evaluate.evaluator.weigh`), which the shapes' weights would otherwise drown."""
SHAPE_DISPATCH_GAIN = 0.03
"""Likewise at a shape already ahead of its baselines, for a configuration this much faster there
(the noise between two evaluations): a step toward the roofline the weights would drown too."""
ASK_TRIES = 25
UPCOMING_MAX = 256
"""At most this many configurations are handed to a harness to compile ahead."""
PROMOTED = ("\n# aka: promoted by the tuner. This configuration won every shape in focused trials only\n"
            "# (visible shapes, no held-out one); this copy is judged in full and compared.\n")
"""Appended to a promoted kernel's source: the full evaluation is a candidate of its own (another
hash) beside the focused trials of the same configuration."""


@dataclass(frozen=True)
class Family:
    """One reference kernel file the tuner may use."""

    key: str
    """Path relative to the kernel root (e.g. 'rmsnorm/blocked_columns.py')."""
    meta: KernelMeta
    source: str
    borrowed: bool = False
    """A kernel of another operator, tried because its interface fits this one's reference."""

    def candidate(self, params: dict[str, Any], parent: str | None, why: str) -> Candidate:
        full = {**self.meta.defaults(), **params}
        return Candidate(source=self.source, params=full, origin="tuner", name=self.key,
                         parent=parent, rationale=why, family=self.key)

    def first_untried(self, points: list[dict[str, Any]], tried: set[str]) -> dict[str, Any] | None:
        """The first of `points` whose candidate is not among the `tried` hashes."""
        return next((p for p in points if self.candidate(p, None, "").hash not in tried), None)

    def space(self) -> list[dict[str, Any]]:
        names = sorted(self.meta.params)
        return [dict(zip(names, combo)) for combo in
                itertools.product(*(self.meta.params[n].values for n in names))]


def eligible(meta: KernelMeta, op: dict[str, Any], device: dict[str, Any]) -> str:
    """Why a kernel cannot serve this operator on this device ('' when it can)."""
    if meta.op != op["name"]:
        return f"implements {meta.op}, not {op['name']}"
    if meta.dsl != op.get("backend", "triton"):
        return f"written in {meta.dsl}, the operator wants {op.get('backend')}"
    if device.get("kind") != "cuda":
        return "needs a GPU" if "gpu" in meta.requires else ""
    vendor = device.get("vendor", "nvidia")
    if meta.vendors and vendor not in meta.vendors:
        return f"meant for {', '.join(meta.vendors)}, not {vendor}"
    if not arch_ok(meta.archs, device.get("arch", "")):
        return f"meant for {', '.join(meta.archs)}, not {device.get('arch')}"
    return ""


def arch_ok(archs: tuple[str, ...], arch: str) -> bool:
    """'any', the device's own arch, or an older plain NVIDIA arch (sm80 code runs on sm90; an
    arch-specific one such as sm90a does not carry forward)."""
    if not archs or "any" in archs or arch in archs:
        return True
    if not arch.startswith("sm"):
        return False
    mine = _sm(arch)
    return any(a.startswith("sm") and not a.endswith("a") and _sm(a) is not None and mine is not None
               and _sm(a) <= mine for a in archs)


def _sm(arch: str) -> int | None:
    digits = "".join(ch for ch in arch[2:] if ch.isdigit())
    return int(digits) if digits else None


class Tuner:
    """Template-parameter search over reference kernels (see the module docstring)."""

    name = "tuner"
    reads_profile = False
    """It searches kernels and parameters by measurement alone; the loop profiles only its best."""
    batches = True
    """Each proposal follows from the context alone, so the loop may ask for several at once
    (`--parallel`), listing the ones already asked as pending trials."""
    focuses = True
    """Tuning points are judged at the shape they were chosen for only (`Proposal.focus`)."""

    def __init__(self, kernel_roots: list[Path], source_root: Path | None = None):
        self.kernel_roots = [Path(r) for r in kernel_roots]
        self.source_root = Path(source_root) if source_root else None
        """Where retrieved snippets' relative source paths resolve (the repository root)."""
        self._catalog: list[Family] | None = None
        self.skipped: list[str] = []

    def reset(self) -> None:
        """Nothing conversational to forget: the tuner reads everything from the context."""

    # --- the catalog --------------------------------------------------------------------------
    def families(self, ctx: ProposalContext) -> list[Family]:
        """Eligible kernel families, retrieval's best first, then by path. For an operator no
        kernel declares (a KernelBench or Atrex problem), retrieved kernels of the nearest
        operators whose interface fits the reference's are borrowed: the harness decides whether
        they compute this operator."""
        if self._catalog is None:
            self._catalog = self._scan(ctx)
        self._adopt_retrieved(ctx)
        if not any(not f.borrowed for f in self._catalog):
            self._borrow(ctx)
        rank = {s.source: i for i, s in enumerate(ctx.knowledge)}
        return sorted(self._catalog, key=lambda f: (min((v for k, v in rank.items() if k.endswith(f.key)),
                                                        default=len(rank)), f.key))

    def _scan(self, ctx: ProposalContext) -> list[Family]:
        found, seen = [], set()
        paths = [(root, p) for root in self.kernel_roots for p in sorted(root.rglob("*.py"))]
        for root, path in paths:
            try:
                meta = read_kernel_meta(path)
            except SpecError as exc:
                self.skipped.append(str(exc))
                continue
            if meta.op != ctx.op["name"]:
                continue
            why = eligible(meta, ctx.op, ctx.device)
            key = path.relative_to(root).as_posix()
            if why:
                self.skipped.append(f"{key}: {why}")
            elif key not in seen:
                seen.add(key)
                found.append(Family(key, meta, path.read_text()))
        return found

    def _adopt_retrieved(self, ctx: ProposalContext) -> None:
        """Kernel files found by retrieval outside the kernel roots join the catalog only when their
        front matter says they implement this operator and they fit the device."""
        known = {f.key for f in self._catalog or []}
        for snip in ctx.knowledge:
            if snip.layer != "reference" or ctx.op["name"] not in snip.ops or self.source_root is None:
                continue
            path = self.source_root / snip.source
            if snip.source in known or not path.is_file() or any(snip.source.endswith(k) for k in known):
                continue
            try:
                meta = read_kernel_meta(path)
            except SpecError as exc:
                self.skipped.append(str(exc))
                continue
            why = eligible(meta, ctx.op, ctx.device)
            if why:
                self.skipped.append(f"{snip.source}: {why}")
            else:
                self._catalog.append(Family(snip.source, meta, path.read_text()))
                known.add(snip.source)

    def _borrow(self, ctx: ProposalContext) -> None:
        known = {f.key for f in self._catalog or []}
        fit = interface(Path(ctx.op.get("reference", "")))
        for snip in ctx.knowledge:
            if snip.layer != "reference" or self.source_root is None or snip.source in known:
                continue
            path = self.source_root / snip.source
            if not path.is_file() or len([f for f in self._catalog if f.borrowed]) >= BORROW_MAX:
                continue
            try:
                meta = read_kernel_meta(path)
            except SpecError as exc:
                self.skipped.append(str(exc))
                continue
            why = eligible(meta, {**ctx.op, "name": meta.op}, ctx.device)
            source = path.read_text()
            if not why and (fit is None or interface(path, "ModelNew") != fit):
                why = f"its ModelNew's interface {interface(path, 'ModelNew')} does not fit the reference's {fit}"
            if why:
                self.skipped.append(f"{snip.source} (borrowed from {meta.op}): {why}")
                continue
            self._catalog.append(Family(snip.source, meta, source, borrowed=True))
            known.add(snip.source)

    # --- proposing ----------------------------------------------------------------------------
    def upcoming(self, ctx: ProposalContext, limit: int = UPCOMING_MAX) -> list[Candidate]:
        """Configurations this tuner may propose, about in the order it reaches them: every
        family's defaults (the screen), then the points their front matter declares; once screened,
        the whole space of the family the next tuning turns will ask of (`_next_spaces`); then the
        families' spaces taken in turn. What a harness can compile ahead of their evaluation (the
        warmer compiles the first listed first)."""
        families = [f for f in self.families(ctx) if f.key not in ctx.avoid_families]
        screen = [(f, {}) for f in families]
        declared = [(f, point) for f in families for point in f.meta.points_for()]
        turns = [(f, p) for row in itertools.zip_longest(*(f.space() for f in families))
                 for f, p in zip(families, row) if p is not None]
        out: dict[str, Candidate] = {}
        for fam, params in screen + declared + self._next_spaces(ctx) + turns:
            cand = fam.candidate(params, None, "")
            out.setdefault(cand.hash, cand)
            if len(out) == limit:
                break
        return list(out.values())

    def _next_spaces(self, ctx: ProposalContext, turns: int = 2) -> list[tuple[Family, dict[str, Any]]]:
        """Once every family is screened: the whole space of the family the next TURNS tuning turns
        will ask a point of (the fastest at the shapes next in turn), so what TPE picks there is
        compiled first."""
        families = self.families(ctx)
        if self._screen(ctx, families, {t.candidate for t in ctx.trials}, None) is not None:
            return []                                     # still screening
        best = best_per_shape(ctx)
        out, seen = [], set()
        for shape in self._turn_order(ctx, families, best)[:turns]:
            ranked = self._families_for(shape["id"], families, best, ctx)
            if ranked and ranked[0].key not in seen:
                seen.add(ranked[0].key)
                out += [(ranked[0], p) for p in ranked[0].space()]
        return out

    def propose(self, ctx: ProposalContext) -> Proposal | None:
        families = self.families(ctx)
        tried = {t.candidate for t in ctx.trials}
        parent = ctx.incumbent.hash if ctx.incumbent else None
        for step in (self._promote, self._early_dispatch, self._screen, self._dispatch, self._tune):
            proposal = step(ctx, families, tried, parent)
            if proposal is not None:
                return proposal
        return None

    def _screen(self, ctx, families, tried, parent) -> Proposal | None:
        for fam in families:
            if fam.key in ctx.avoid_families:
                continue
            cand = fam.candidate({}, parent, f"screen {fam.key} at its default parameters")
            if cand.hash not in tried:
                borrowed = (f"a {fam.meta.op} kernel whose interface fits this operator's reference; the "
                            "harness decides whether it computes it; " if fam.borrowed else "")
                focus = self._screen_focus(ctx)
                return Proposal(cand, change=f"family {fam.key} at defaults {fam.meta.defaults()}",
                                hypothesis=f"{borrowed}strategy '{fam.meta.strategy}' "
                                           f"({', '.join(fam.meta.techniques)}) may suit these shapes"
                                           + (", judged at the visible shapes only" if focus else ""),
                                focus=focus)
        return None

    def _screen_focus(self, ctx: ProposalContext) -> tuple[str, ...]:
        """The shapes a screen is judged at: none (a full evaluation) until there is an incumbent;
        then the visible shapes the incumbent was judged at, in the operator's order."""
        inc = incumbent_trial(ctx)
        if not self.focuses or inc is None or not inc.times_us:
            return ()
        return tuple(s["id"] for s in run_shapes(ctx) if s["id"] in inc.times_us)

    def _promote(self, ctx, families, tried, parent) -> Proposal | None:
        """One configuration fastest at every shape measured, judged only in focused trials (its
        screen, or the tuning points of a one-shape run), and predicted faster than the incumbent:
        the same kernel judged in full and compared (a dispatcher needs two winners)."""
        best = best_per_shape(ctx)
        configs = winners_by_config(best)
        if len(configs) != 1:
            return None
        (config, winner), = configs.items()
        fam = next((f for f in families if f.key == winner.family), None)
        inc = incumbent_trial(ctx)
        full = [t for t in ctx.trials if config_key(t.family, t.params) == config and not t.focus]
        if fam is None or full or (inc is not None and config_key(inc.family, inc.params) == config):
            return None
        if _predicted_gain(ctx, best) <= DISPATCH_MIN_GAIN:
            return None
        base = fam.candidate(winner.params, parent, "")
        cand = Candidate(source=base.source + PROMOTED, params=base.params, origin="tuner", name=base.name,
                         parent=parent, rationale=f"promote {fam.key} at {winner.params}: fastest at every "
                                                  "shape in focused trials", family=fam.key)
        if cand.hash in tried:
            return None
        return Proposal(cand, change=f"{fam.key} at {winner.params}, judged in full",
                        hypothesis="the configuration fastest at every shape measured so far, in focused trials "
                                   "only; judged at every shape, held-out ones included, and compared")

    def _early_dispatch(self, ctx, families, tried, parent) -> Proposal | None:
        """The dispatcher ahead of the screens still to run, when the winners so far promise enough
        (EARLY_DISPATCH_GAIN) over an incumbent; once screening is over `_dispatch` takes over."""
        if incumbent_trial(ctx) is None or self._screen(ctx, families, tried, parent) is None:
            return None
        return self._dispatch(ctx, families, tried, parent, min_gain=EARLY_DISPATCH_GAIN, per_shape=False)

    def _dispatch(self, ctx, families, tried, parent, min_gain: float = DISPATCH_MIN_GAIN,
                  per_shape: bool = True) -> Proposal | None:
        """A dispatcher over the per-shape winners, when its predicted weighted gain exceeds MIN_GAIN
        or (PER_SHAPE) it moves some shape by more than `shape_gains` asks."""
        best = best_per_shape(ctx)
        by_key = {f.key: f for f in families}
        winners = [t for t in winners_by_config(best).values() if t.family in by_key]
        if len(winners) < 2:
            return None
        if _predicted_gain(ctx, best) <= min_gain and not (per_shape and shape_gains(ctx, best)):
            return None
        shapes = {sid: tuple(tuple(s) for s in t.input_shapes.get(sid, [])) for sid, (t, _) in best.items()}
        rule = unseen_rule(ctx, shapes)
        extra = _bucket_trials(ctx, rule, winners, by_key) if rule.rule == BUCKET else []
        variants = [by_key[w.family].candidate(w.params, parent, "") for w in winners + extra]
        index = {config_key(w.family, w.params): i for i, w in enumerate(winners + extra)}
        routes = {sid: config_key(t.family, t.params) for sid, (t, _) in best.items()}
        buckets = [Bucket(sid, shapes[sid], index[key]) for sid, key in routes.items()]
        unseen = _unseen(rule, shapes, index, ctx)
        cand = build_dispatcher(variants, buckets, ctx.op["name"], parent, unseen)
        if cand.hash in tried:
            return None
        return Proposal(cand, change=f"dispatcher over {len(variants)} variants: {cand.rationale}",
                        hypothesis="each shape runs the kernel and configuration measured fastest for it; "
                                   f"an unseen shape by the {unseen.rule} rule ({unseen.why})",
                        meta={"unseen_shapes": {**rule.to_dict(), "rule": unseen.rule, "why": unseen.why},
                              "routes": routes})

    def _turn_order(self, ctx: ProposalContext, families: list[Family], best: dict) -> list[dict[str, Any]]:
        """The shapes in the order this tuning turn tries them: a rotation by weight over the judged
        shapes, or over those still behind a baseline on two turns in three."""
        judged = run_shapes(ctx)
        measured = {sid for t in ctx.trials for sid in t.times_us}     # the shapes judged (`--shape` may narrow them)
        shapes = sorted([s for s in judged if s["id"] in measured] or judged, key=lambda s: -float(s.get("weight", 1.0)))
        if not shapes:
            return []
        turn = sum(1 for t in ctx.trials if t.origin == "tuner" and t.params != _defaults(families, t.family))
        behind = set(behind_baselines(ctx, best))
        lagging = [s for s in shapes if s["id"] in behind]
        pool = lagging if lagging and turn % LAG_CYCLE != LAG_CYCLE - 1 else shapes
        return pool[turn % len(pool):] + pool[: turn % len(pool)]

    def _tune(self, ctx, families, tried, parent) -> Proposal | None:
        """A point for the shape next in turn: first any family's untried point declared for that
        shape by name (its author measured it there; a family second-fastest at its defaults may
        win at its declared point), then the fastest family's next point (`_ask`)."""
        best = best_per_shape(ctx)
        for shape in self._turn_order(ctx, families, best):
            ranked = self._families_for(shape["id"], families, best, ctx)
            named = [f for f in ranked if f.key not in ctx.avoid_families
                     and f.first_untried(f.meta.points_for(shape["id"], named=True), tried) is not None]
            for fam in named[:1] + ranked:
                params = self._ask(fam, shape["id"], ctx, tried)
                if params is not None:
                    cand = fam.candidate(params, parent, f"tune {fam.key} for shape {shape['id']}")
                    focus = (shape["id"],) if self.focuses else ()
                    how = ("a point its front matter declares" if params in fam.meta.points_for(shape["id"])
                           else f"TPE over {len(fam.space())} points")
                    return Proposal(cand, change=f"{fam.key} at {params}",
                                    hypothesis=f"a better point of {fam.key}'s space for {shape['id']} ({how})"
                                               + (f", judged at {shape['id']} alone" if focus else ""),
                                    focus=focus)
        return None

    def _families_for(self, sid: str, families: list[Family], best: dict, ctx: ProposalContext) -> list[Family]:
        """Families ranked for one shape: measured fastest first; avoided ones last."""
        times: dict[str, float] = {}
        for t in ctx.trials:
            if t.status == "accepted" and sid in t.times_us:
                times[t.family] = min(times.get(t.family, float("inf")), t.times_us[sid])
        return sorted(families, key=lambda f: (f.key in ctx.avoid_families, times.get(f.key, float("inf")), f.key))

    def _ask(self, fam: Family, sid: str, ctx: ProposalContext, tried: set[str]) -> dict[str, Any] | None:
        """An untried parameter point of `fam`, chosen for shape `sid`: the first of the points its
        front matter declares for that shape not tried yet, else one from the sampler."""
        point = fam.first_untried(fam.meta.points_for(sid), tried)
        if point is not None:
            return point
        mine = [t for t in ctx.trials if t.family == fam.key and (t.status != "accepted" or sid in t.times_us)]
        return ask_point(fam, ctx, tried, mine,
                         lambda t: t.times_us[sid] if t.status == "accepted" and sid in t.times_us else None)


def ask_point(fam: Family, ctx: ProposalContext, tried: set[str], trials: list[Trial],
              value: Callable[[Trial], float | None]) -> dict[str, Any] | None:
    """An untried point of `fam`'s space from Optuna's TPE sampler fitted on `trials` (`value`:
    what to minimize, None for a failed point); a random sampler for an avoided family after a
    dropout. None when every point was tried."""
    space = fam.space()
    untried = [p for p in space if fam.candidate(p, None, "").hash not in tried]
    if not untried:
        return None
    if not fam.meta.params:
        return untried[0]
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    seed = ctx.seed + 7919 * ctx.dropouts + len(ctx.trials)
    sampler = (optuna.samplers.RandomSampler(seed=seed) if ctx.dropouts and fam.key in ctx.avoid_families
               else optuna.samplers.TPESampler(seed=seed, n_startup_trials=3))
    study = optuna.create_study(direction="minimize", sampler=sampler)
    dists = {k: optuna.distributions.CategoricalDistribution(list(p.values)) for k, p in fam.meta.params.items()}
    for t in trials:
        if set(t.params) != set(dists) or any(t.params[k] not in d.choices for k, d in dists.items()):
            continue
        got = value(t)
        study.add_trial(optuna.trial.create_trial(
            params=t.params, distributions=dists, value=got,
            state=optuna.trial.TrialState.COMPLETE if got is not None else optuna.trial.TrialState.FAIL))
    for _ in range(ASK_TRIES):
        trial = study.ask(dists)
        if fam.candidate(trial.params, None, "").hash not in tried:
            return dict(trial.params)
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    return random.Random(seed).choice(untried)


LAG_CYCLE = 3
"""Of every LAG_CYCLE tuning turns, all but the last go to the shapes still behind a baseline
(`behind_baselines`), when there are any; the last follows the rotation over every shape by
weight, so no shape is starved."""
BASELINE_LEAD = 1.02
"""A shape is ahead once its best time beats the fastest baseline by this factor (the noise between
two evaluations is about this size)."""


def fastest_baselines(ctx: ProposalContext) -> dict[str, tuple[float, float]]:
    """Visible shape id -> (the incumbent's time, the fastest baseline its evaluation timed there:
    torch.compile, eager or the production library), both in µs, where it timed any."""
    out = {}
    for row in (ctx.incumbent_eval or {}).get("shapes", []):
        us, speedup = row.get("time_us"), row.get("speedup") or {}
        bases = [us * x for x in speedup.values() if us and x and x > 0]
        if bases:
            out[row["id"]] = (us, min(bases))
    return out


def behind_baselines(ctx: ProposalContext, best: dict[str, tuple[Trial, float]]) -> list[str]:
    """Visible shape ids whose fastest accepted time so far is not BASELINE_LEAD times faster than
    the fastest baseline (torch.compile, eager, the production library) the incumbent's evaluation
    timed there: the shapes where a tuning turn is most likely to change the verdict."""
    return [sid for sid, (_, base) in fastest_baselines(ctx).items()
            if sid in best and best[sid][1] * BASELINE_LEAD > base]


def shape_gains(ctx: ProposalContext, best: dict[str, tuple[Trial, float]]) -> dict[str, float]:
    """Shape id -> incumbent time / best time so far, at the shapes where that beats the incumbent
    by more than LAG_DISPATCH_GAIN where the incumbent is not BASELINE_LEAD times faster than the
    fastest baseline its evaluation timed, by more than SHAPE_DISPATCH_GAIN elsewhere."""
    inc = incumbent_trial(ctx)
    if inc is None:
        return {}
    bases = fastest_baselines(ctx)
    gains = {}
    for sid in (row["id"] for row in (ctx.incumbent_eval or {}).get("shapes", [])):
        us = inc.times_us.get(sid)
        if us is None or sid not in best or best[sid][1] <= 0:
            continue
        behind = sid in bases and bases[sid][0] * BASELINE_LEAD > bases[sid][1]
        gain = us / best[sid][1]
        if gain > 1.0 + (LAG_DISPATCH_GAIN if behind else SHAPE_DISPATCH_GAIN):
            gains[sid] = gain
    return gains


BORROW_MAX = 6
"""At most this many kernels of other operators are borrowed for one operator."""


def interface(path: Path, cls: str = "Model") -> tuple[int, int, bool] | None:
    """(positional parameters of `cls.__init__`, of `cls.forward`, forward takes **kwargs) read
    from a file's source without running it; None when the class is not there."""
    try:
        tree = ast.parse(path.read_text())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == cls:
            arity = {"__init__": 0, "forward": 0}
            kwargs = False
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name in arity:
                    arity[item.name] = len(item.args.posonlyargs) + len(item.args.args) - 1
                    kwargs = kwargs or (item.name == "forward" and item.args.kwarg is not None)
            return arity["__init__"], arity["forward"], kwargs
    return None


def run_shapes(ctx: ProposalContext) -> list[dict[str, Any]]:
    """The visible shapes candidates are judged at: the operator's `cpu_shapes` on the CPU
    interpreter where it has them (the ids trials are timed under), else its shapes."""
    if ctx.device.get("kind") != "cuda" and ctx.op.get("cpu_shapes"):
        return list(ctx.op["cpu_shapes"])
    return list(ctx.op["shapes"])


def _defaults(families: list[Family], key: str) -> dict[str, Any]:
    for f in families:
        if f.key == key:
            return f.meta.defaults()
    return {}


def best_per_shape(ctx: ProposalContext) -> dict[str, tuple[Trial, float]]:
    """Visible shape id -> (fastest accepted single-kernel trial, its time). A configuration judged
    in full (a promoted copy) is counted by that evaluation alone: its focused readings, whose
    noise the promotion's comparison may have shown, no longer set a shape's best. A focused
    reading at a shape where a dispatcher judged in full has since run that configuration gives way
    to the dispatcher's reading there, so one lucky focused reading does not stay the bar every
    later point at that shape must clear."""
    full = {config_key(t.family, t.params) for t in ctx.trials
            if t.status == "accepted" and not t.focus and t.origin != "dispatcher"}
    routed = routed_readings(ctx)
    best: dict[str, tuple[Trial, float]] = {}
    for t in ctx.trials:
        if t.status != "accepted" or t.origin == "dispatcher":
            continue
        key = config_key(t.family, t.params)
        if t.focus and key in full:
            continue
        for sid, us in t.times_us.items():
            us = routed.get((key, sid), us) if t.focus else us
            if sid not in best or us < best[sid][1]:
                best[sid] = (t, us)
    return best


def routed_readings(ctx: ProposalContext) -> dict[tuple[str, str], float]:
    """(configuration key, shape id) -> the latest reading there of an accepted dispatcher judged in
    full, for the configuration it routed that shape to."""
    out: dict[tuple[str, str], float] = {}
    for t in ctx.trials:
        if t.status == "accepted" and t.origin == "dispatcher" and not t.focus:
            out.update({(key, sid): t.times_us[sid] for sid, key in t.routes.items() if sid in t.times_us})
    return out


def winners_by_config(best: dict[str, tuple[Trial, float]]) -> dict[str, Trial]:
    """Configuration key -> the first trial of it that is fastest at some shape in BEST: a promoted
    copy and the screen of the same configuration are one winner."""
    out: dict[str, Trial] = {}
    for trial, _ in best.values():
        out.setdefault(config_key(trial.family, trial.params), trial)
    return out


def incumbent_trial(ctx: ProposalContext) -> Trial | None:
    """The trial of the context's incumbent (None when there is none)."""
    if ctx.incumbent is None:
        return None
    return next((t for t in ctx.trials if t.candidate == ctx.incumbent.hash), None)


def _single_trials(ctx: ProposalContext) -> dict[str, Trial]:
    """Configuration key -> its accepted single-kernel trial (the fastest when measured twice)."""
    out: dict[str, Trial] = {}
    for t in ctx.trials:
        if t.status == "accepted" and t.origin != "dispatcher" and t.times_us:
            k = config_key(t.family, t.params)
            if k not in out or sum(t.times_us.values()) < sum(out[k].times_us.values()):
                out[k] = t
    return out


def unseen_rule(ctx: ProposalContext, shapes: dict[str, tuple]) -> UnseenRule:
    """How the dispatcher serves an unseen shape: buckets learned from the session's trials at the
    tuned SHAPES (their input tensors), against the nearest tuned shape (aka.propose.buckets)."""
    table = {k: dict(t.times_us) for k, t in _single_trials(ctx).items()}
    weights = {s["id"]: float(s.get("weight", 1.0)) for s in ctx.op["shapes"]}
    return choose_unseen_rule(table, {sid: [list(d) for d in dims] for sid, dims in shapes.items()}, weights)


def _bucket_trials(ctx: ProposalContext, rule: UnseenRule, winners: list[Trial], by_key: dict) -> list[Trial]:
    """The buckets' configurations that win no tuned shape: extra variants of the dispatcher."""
    trials = _single_trials(ctx)
    have = {config_key(w.family, w.params) for w in winners}
    extra = []
    for b in rule.buckets.buckets if rule.buckets else []:
        t = trials.get(b.config)
        if b.config not in have and t is not None and t.family in by_key:
            have.add(b.config)
            extra.append(t)
    return extra


def _unseen(rule: UnseenRule, shapes: dict[str, tuple], index: dict[str, int], ctx: ProposalContext) -> Unseen:
    """The dispatcher's record of the rule: with buckets, every tuned shape routed to its bucket's variant."""
    trials = _single_trials(ctx)
    routes, notes = [], []
    if rule.rule == BUCKET and rule.buckets:
        for b in rule.buckets.buckets:
            if trials.get(b.config) is None or b.config not in index:
                return Unseen(NEAREST, f"bucket {b.shapes} has no variant to run, so the buckets are not used")
            v = index[b.config]
            routes += [Bucket(sid, shapes[sid], v) for sid in b.shapes]
            notes.append(f"bucket {{{', '.join(b.shapes)}}} -> variant {v} (worst member {100 * b.regret:.1f} % "
                         "from its own best)")
        routes.sort(key=lambda r: r.shape_id)
    return Unseen(rule.rule, rule.why, tuple(routes), tuple(notes))


def _predicted_gain(ctx: ProposalContext, best: dict[str, tuple[Trial, float]]) -> float:
    """Weighted geomean gain of the per-shape winners over the incumbent's measured times."""
    import math

    inc = incumbent_trial(ctx)
    if inc is None:
        return float("inf")
    weights = {s["id"]: float(s.get("weight", 1.0)) for s in ctx.op["shapes"]}
    num = den = 0.0
    for sid, (_, us) in best.items():
        if sid in inc.times_us and us > 0:
            w = weights.get(sid, 1.0)
            num += w * math.log(inc.times_us[sid] / us)
            den += w
    return math.exp(num / den) - 1.0 if den else 0.0
