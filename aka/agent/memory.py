"""Memory records: writing one per evaluated candidate, protection, and optimization dropout."""

from __future__ import annotations

import random
from typing import Any

from aka.spec.memory import MemoryRecord
from aka.spec.result import Decision, EvalResult


def record_for(n: int, version: str, proposal: dict[str, Any], result: EvalResult,
               decision: Decision | None) -> MemoryRecord:
    """The memory record of one evaluated candidate; rejected directions become anti-strategies."""
    cand = proposal["candidate"]
    times = {s.id: s.time.median_us for s in result.shapes if s.time and not s.held_out}
    figures: dict[str, Any] = {"times_us": times, "status": result.status.value}
    if decision is not None:
        figures["speedup_vs_incumbent"] = decision.speedup
        figures["noise"] = decision.noise
    promoted = decision is not None and decision.promote
    if not result.accepted:
        rule = result.rejections[0].rule
        where = result.rejections[0].shape
        lesson = f"{cand['name']} {cand['params']} was rejected by the harness ({rule}" + (
            f" at a visible shape {where})" if where and not _held(result, where) else ")")
        verdict = result.status.value
    elif promoted:
        lesson = f"{cand['name']} {cand['params']} beat the incumbent: {decision.reason}"
        verdict = "promoted"
    elif result.focus:
        won = list(decision.new_bests) if decision else []
        lesson = (f"{cand['name']} {cand['params']}, judged at {', '.join(result.focus)} alone"
                  + (f", the best yet at {', '.join(won)}" if won and len(won) < len(result.focus) else "")
                  + f": {decision.reason if decision else 'not decided'}")
        figures["new_bests"] = won
        # a screen that wins some of its shapes found what a dispatcher will use: a strategy there
        verdict = "shape-best" if decision and (decision.progress or won) else "no-shape-best"
    else:
        reason = decision.reason if decision else "not compared"
        lesson = f"{cand['name']} {cand['params']} did not beat the incumbent: {reason}"
        verdict = "within-noise" if decision and decision.failure is None and "within noise" in reason else (
            "failed-while-timed" if decision and decision.failure else "slower")
    return MemoryRecord(id=f"m{n:03d}", candidate=cand["hash"], version=version,
                        change=proposal.get("change", ""), hypothesis=proposal.get("hypothesis", ""),
                        verdict=verdict, lesson=lesson, figures=figures,
                        kind="strategy" if promoted or verdict == "shape-best" else "anti-strategy")


def _held(result: EvalResult, shape_id: str) -> bool:
    return any(s.id == shape_id and s.held_out for s in result.shapes)


def protect(records: list[MemoryRecord], incumbent: str | None, latest_promoted: str | None) -> list[MemoryRecord]:
    """Protected: the baseline record, the incumbent's, and the latest promoted one."""
    for r in records:
        r.protected = r.kind == "baseline" or r.version in (incumbent, latest_promoted)
    return records


def dropout(records: list[MemoryRecord], seed: int, number: int) -> list[str]:
    """Mask a seeded random half (rounded up) of the unprotected, unmasked records; return their ids."""
    free = [r for r in records if not r.protected and not r.masked]
    k = (len(free) + 1) // 2
    chosen = random.Random(seed * 1000 + number).sample(free, k) if k else []
    for r in chosen:
        r.masked, r.masked_by = True, number
    return sorted(r.id for r in chosen)
