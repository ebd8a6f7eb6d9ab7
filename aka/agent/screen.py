"""Decisions from evaluation times alone, before (or instead of) an interleaved comparison: a clear
loser against the incumbent, a batch member slower than the batch's fastest, and a focused trial
(never promoted; a new best at its shape is progress)."""

from __future__ import annotations

import math

from typing import Any

from aka.agent.deps import Deps
from aka.spec.memory import Trial
from aka.spec.result import Decision, EvalResult


def times(result: EvalResult) -> dict[str, float]:
    return {s.id: s.time.median_us for s in result.shapes if s.time and not s.held_out}


SCREEN_MARGIN = 0.03
"""A candidate whose evaluation times are this much slower (weighted) than the incumbent's is
rejected without the interleaved comparison, which only a contender needs."""


def batch_screen(deps: Deps, version: str, batch: list[str]) -> Decision | None:
    """In a batch, only the member fastest by its evaluation times (weighted over the shapes, among
    the accepted ones) goes on to the interleaved comparison; the others are rejected here."""
    results = {v: deps.store.get_eval(v) for v in batch if v != version}
    mine = deps.store.get_eval(version)
    best, best_ratio = None, 1.0
    for other, res in results.items():
        if res is None or not res.accepted or res.focus:        # a focused member was timed at its shapes only
            continue
        ratio = speed_ratio(deps, res, mine)
        if ratio is not None and (ratio > best_ratio or (ratio == best_ratio and other < version)):
            best, best_ratio = other, ratio
    if best is None:
        return None
    return Decision(False, f"{best} of the same batch is faster by the evaluation times ({best_ratio:.3f}x "
                           "weighted); only the batch's fastest is compared with the incumbent", speedup=1 / best_ratio)


def speed_ratio(deps: Deps, fast: EvalResult, slow: EvalResult) -> float | None:
    """How many times faster FAST is than SLOW by their evaluation times, weighted geomean over the
    visible shapes both timed (None when they share none)."""
    mine, theirs = times(fast), times(slow)
    weights = {s.id: s.weight for s in deps.spec.shapes}
    common = [sid for sid in mine if sid in theirs and mine[sid] > 0 and theirs[sid] > 0]
    if not common:
        return None
    total = sum(weights.get(sid, 1.0) for sid in common)
    return math.exp(sum(weights.get(sid, 1.0) * math.log(theirs[sid] / mine[sid]) for sid in common) / total)


def screen(deps: Deps, incumbent: EvalResult | None, result: EvalResult) -> Decision | None:
    """Reject a clear loser from the evaluation times both already have; None: compare them."""
    if incumbent is None:
        return None
    ratio = speed_ratio(deps, result, incumbent)
    if ratio is None:
        return None
    if ratio >= 1.0 - SCREEN_MARGIN:
        return None
    return Decision(False, f"slower by its evaluation times: {ratio:.3f}x weighted against the incumbent "
                           "(no interleaved comparison needed)", speedup=ratio)


def best_before(state: dict[str, Any], version: str, shapes) -> dict[str, float]:
    """Shape id -> the best time any other accepted trial measured there, for SHAPES."""
    best: dict[str, float] = {}
    for t in (Trial.from_dict(d) for d in state.get("trials", [])):
        if t.version == version or t.status != "accepted":
            continue
        for sid, us in t.times_us.items():
            if sid in shapes and us > 0:
                best[sid] = min(best.get(sid, math.inf), us)
    return best


def new_bests(state: dict[str, Any], version: str, result: EvalResult) -> list[str]:
    """The shapes where RESULT beats every other accepted trial's time by more than SCREEN_MARGIN
    (or is the first time measured there)."""
    mine = times(result)
    return _fresh(mine, best_before(state, version, mine))


def _fresh(mine: dict[str, float], best: dict[str, float]) -> list[str]:
    return [sid for sid, us in sorted(mine.items()) if best.get(sid) is None or us < (1.0 - SCREEN_MARGIN) * best[sid]]


def focused(deps: Deps, state: dict[str, Any], version: str, result: EvalResult) -> Decision:
    """The verdict on an accepted focused trial (`Proposal.focus`): never promoted, since it was not
    judged at every shape nor held-out ones; progress when it beats the best time any other accepted
    trial measured at each of its shapes by more than SCREEN_MARGIN (noise between evaluations)."""
    mine = times(result)
    best = best_before(state, version, mine)
    fresh = set(_fresh(mine, best))
    parts, records = [], []
    for sid, us in sorted(mine.items()):
        before = best.get(sid)
        record = sid in fresh
        records.append(record)
        was = f"{before:.4g} µs before, {before / us:.3f}x" if before else "the first time measured there"
        parts.append(f"{sid} {us:.4g} µs ({'a new best: ' if record else 'no new best: '}{was})")
    if not parts:
        parts = [f"{', '.join(result.focus)} (no time measured)"]
    ratios = [best[sid] / us for sid, us in mine.items() if best.get(sid) and us > 0]
    gain = math.exp(sum(math.log(r) for r in ratios) / len(ratios)) if ratios else None
    return Decision(False, f"a focused trial at {', '.join(parts)}; it feeds the tuner's dispatcher, never "
                           "promoted itself (not judged at every shape, held-out ones included)", speedup=gain,
                    progress=bool(records) and all(records), new_bests=sorted(fresh))
