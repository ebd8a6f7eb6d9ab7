"""Decisions from evaluation times alone, before (or instead of) an interleaved comparison: a clear
loser against the incumbent, and a batch member slower than the batch's fastest."""

from __future__ import annotations

import math

from aka.agent.deps import Deps
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
        if res is None or not res.accepted:
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
