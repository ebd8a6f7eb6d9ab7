"""Where a session's wall time went, from its journal alone: the run's seconds (a resumed run's time
between being killed and resumed left out), the candidates evaluated and their rate per minute,
over the whole run and after the first candidate (the steady state, once the session's one-time
work is done: the worker pool started, the baselines timed, the first kernels compiled), and the
seconds charged to each loop step. The time before an event is charged to that event's step:
`evaluate` is an evaluation, `accept` the interleaved comparison where one ran, `setup` the
start-up, `confirm` the end-of-session evaluation, `profile` the profiler run."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable

RESTARTS = ("config", "resume")
"""Events that open a run (the first, or one resumed after a kill): the gap before one is not the run's."""


def timeline(events: Iterable[Any]) -> dict[str, Any]:
    """The run's figures from its journal events (objects with `kind`, `time` and `data`); {} for
    a journal without two timed events."""
    events = list(events)
    steps: dict[str, float] = {}
    counts: dict[str, int] = {}
    decides: list[datetime] = []
    evaluated: list[datetime] = []
    last: datetime | None = None
    for ev in events:
        try:
            ts = datetime.fromisoformat(ev.time)
        except (TypeError, ValueError):
            continue
        kind = ev.kind
        if last is not None and kind not in RESTARTS:
            steps[kind] = steps.get(kind, 0.0) + max(0.0, (ts - last).total_seconds())
            counts[kind] = counts.get(kind, 0) + 1
        if kind == "evaluate":
            evaluated.append(ts)
        if kind == "decide" and not (ev.data or {}).get("queued"):    # a decide inside a batch ends no iteration
            decides.append(ts)
        last = ts
    if not steps:
        return {}
    wall = sum(steps.values())
    out: dict[str, Any] = {
        "wall_s": round(wall, 2), "candidates": len(evaluated),
        "per_minute": round(60.0 * len(evaluated) / wall, 2) if wall > 0 else None,
        "steps_s": {k: round(v, 2) for k, v in sorted(steps.items(), key=lambda kv: -kv[1])},
        "step_counts": counts,
    }
    if len(decides) > 1:
        n = sum(1 for t in evaluated if t > decides[0])
        seconds = _run_seconds(events, decides[0], decides[-1])
        out["steady"] = {"candidates": n, "seconds": round(seconds, 2),
                         "per_minute": round(60.0 * n / seconds, 2) if seconds > 0 else None}
    return out


def _run_seconds(events: list[Any], start: datetime, end: datetime) -> float:
    """Seconds of the run between START and END, gaps before a restart left out."""
    total, last = 0.0, None
    for ev in events:
        try:
            ts = datetime.fromisoformat(ev.time)
        except (TypeError, ValueError):
            continue
        if start < ts <= end and last is not None and ev.kind not in RESTARTS:
            total += max(0.0, (ts - max(last, start)).total_seconds())
        last = ts
    return total


def lines(run: dict[str, Any], interpreter: bool) -> list[str]:
    """The report's section on the run (its wall time, rate, and where the time went)."""
    if not run:
        return []
    out = ["", "## The run", ""]
    if interpreter:
        out += ["Wall times of a CPU interpreter run: they say nothing about what a GPU run takes.", ""]
    rate = f" ({run['per_minute']:.1f} per minute)" if run.get("per_minute") is not None else ""
    out.append(f"- {run['candidates']} candidates evaluated in {run['wall_s']:.1f} s{rate}, from the journal's "
               "first event to its last: start-up, end-of-session evaluation and profile included, the time "
               "between a kill and `--resume` left out.")
    steady = run.get("steady")
    if steady and steady.get("per_minute") is not None:
        out.append(f"- After the first candidate: {steady['candidates']} in {steady['seconds']:.1f} s "
                   f"({steady['per_minute']:.1f} per minute).")
    out += ["", "| step | seconds | events |", "|---|---|---|"]
    out += [f"| {k} | {v:.2f} | {run['step_counts'].get(k, 0)} |" for k, v in run["steps_s"].items()]
    return out
