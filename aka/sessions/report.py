"""`report.md` of a session: the best kernel per shape against each baseline and the roofline, the
incumbent's trajectory, dropouts and the stop reason; for a map-elites session its archive —
read from the session's files alone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aka.agent.qd.history import History, replay
from aka.sessions.folder import SessionFolder, write_text
from aka.sessions.journal import read_events
from aka.sessions.report_archive import section
from aka.sessions.timeline import lines as run_lines
from aka.sessions.timeline import timeline
from aka.spec.op import OpSpec
from aka.spec.result import EvalResult, speedup_text


def summarize(folder: SessionFolder, spec: OpSpec) -> dict[str, Any]:
    """The figures the report and `--json` show."""
    events = read_events(folder.journal_path)
    best = folder.best_version()
    result = folder.get_eval(best) if best else None
    confirmed = folder.get_confirmed(best) if best else None
    figures = _figures_of(result, confirmed)
    stop = next((e.data for e in reversed(events.events) if e.kind == "stop"), {})
    evaluated = [e.data for e in events.events if e.kind == "evaluate"]
    accepts = [e.data for e in events.events if e.kind == "accept"]
    dropouts = [e.data for e in events.events if e.kind == "dropout"]
    return {
        "id": folder.root.name, "op": spec.name, "best": best,
        "best_name": folder.candidate(best)[0].name if best else None,
        "stop_reason": stop.get("reason", "(still running or interrupted)"),
        "evaluated": len(evaluated),
        "focused": sum(1 for d in evaluated if d.get("focus")),
        "statuses": _count(d["status"] for d in evaluated),
        "promoted": [a["version"] for a in accepts if a.get("promote")],
        "dropouts": [{"number": d["number"], "masked": d["masked"]} for d in dropouts],
        "mode": result.mode if result else None,
        "shapes": _shape_rows(figures, spec) if figures else [],
        "figures": ("confirmed" if figures is confirmed else "search") if figures else None,
        "confirmed": {"status": confirmed.status.value, "rejections": [str(r) for r in confirmed.rejections][:3]}
        if confirmed is not None else None,
        "journal_dropped": events.dropped,
        "unseen_shapes": _unseen_rule(events.events, best),
        "interpreter": any(d.get("mode") == "cpu-interpreter" for d in evaluated),
        "run": timeline(events.events),
    }


def _figures_of(result: EvalResult | None, confirmed: EvalResult | None) -> EvalResult | None:
    """The evaluation whose figures the report shows: the end-of-session one where it passed, else
    the search's."""
    return confirmed if confirmed is not None and confirmed.accepted else result


def _unseen_rule(events: list, best: str | None) -> dict[str, Any] | None:
    """How the best kernel, when it is a tuner's dispatcher, serves unseen shapes (its propose event)."""
    short = next((e.data.get("candidate") for e in events
                  if e.kind == "evaluate" and best and e.data.get("version") == best), None)
    found = next((e.data.get("unseen_shapes") for e in events
                  if e.kind == "propose" and short and e.data.get("candidate") == short), None)
    return {"rule": found["rule"], "why": found["why"]} if found else None


def _name(folder: SessionFolder, version: str) -> str:
    try:
        return folder.candidate(version)[0].name
    except Exception:  # noqa: BLE001 - a missing record: the report still reads
        return "?"


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def _shape_rows(result: EvalResult, spec: OpSpec) -> list[dict[str, Any]]:
    weights = {s.id: (s.weight, s.phase) for s in spec.shapes + spec.cpu_shapes}
    rows = []
    for s in result.shapes:
        if s.held_out:
            continue
        roof = s.roofline
        rows.append({
            "shape": s.id, "weight": weights.get(s.id, (1.0, "any"))[0], "phase": weights.get(s.id, (1.0, "any"))[1],
            "time_us": s.time.median_us if s.time else None, "method": s.time.method if s.time else None,
            "baselines_us": {k: v.median_us for k, v in s.baselines.items()},
            "speedup": dict(s.speedup),
            "sol": roof.sol if roof else None, "sol_calibrated": roof.sol_calibrated if roof else None,
            "sol_launch_adjusted": roof.sol_launch_adjusted if roof else None,
            "sol_flag": roof.flag if roof else "",
        })
    return rows


def write_report(folder: SessionFolder, spec: OpSpec) -> dict[str, Any]:
    """Write report.md and return its figures."""
    s = summarize(folder, spec)
    lines = [f"# aka session {s['id']}: {spec.name}", ""]
    if s["best"] is None:
        lines += ["No correct and honest kernel was found.", ""]
    else:
        lines += [f"Best kernel: `{s['best']}` ({s['best_name']}), file `best/candidate.py`.", ""]
        if s["unseen_shapes"]:
            u = s["unseen_shapes"]
            lines += [f"It is a per-shape dispatcher: a shape it was not tuned for (held-out or yours) runs by the "
                      f"{u['rule']} rule ({u['why']}).", ""]
    focused = (f"; {s['focused']} of them focused trials, each judged at its own shapes only (a tuning point at the "
               "shape it was tuned for, a screen at the visible shapes; no held-out shape) and "
               "never promoted itself" if s["focused"] else "")
    lines += [f"Stopped: {s['stop_reason']}. Candidates evaluated: {s['evaluated']} "
              f"({', '.join(f'{k} {v}' for k, v in sorted(s['statuses'].items())) or 'none'}{focused}).", ""]
    if s["mode"] == "cpu-interpreter":
        lines += ["Times below are **CPU wall times through Triton's interpreter**: they rank candidates and "
                  "say nothing about GPU performance. No speedup or speed-of-light is reported.", ""]
    lines += _figures_note(s)
    if s["shapes"]:
        lines += _table(s)
    lines += run_lines(s["run"], s["interpreter"])
    lines += ["", "## Trajectory", ""]
    lines += _trajectory(folder)
    if s["dropouts"]:
        lines += ["", "## Optimization dropouts", ""]
        lines += [f"- dropout {d['number']}: masked {', '.join(d['masked']) or 'nothing'}" for d in s["dropouts"]]
    history = replay(read_events(folder.journal_path).events)
    if history is not None:
        lines += section(history, lambda v: _name(folder, v))
    if s["journal_dropped"]:
        lines += ["", "Journal lines that could not be read: " + "; ".join(s["journal_dropped"])]
    lines += _plots(folder, spec, s, history)
    write_text(folder.root / "report.md", "\n".join(lines) + "\n")
    return s


def _figures_note(s: dict[str, Any]) -> list[str]:
    """Where the table's figures come from: the end-of-session evaluation with its baselines
    interleaved, or the search's evaluation against baselines timed when the session began."""
    if s["best"] is None or s["mode"] != "gpu":
        return []
    c = s.get("confirmed")
    if c and c["status"] == "accepted":
        return ["Figures: the best kernel evaluated once more when the session ended, all checks again, its "
                "baselines timed beside it at every shape, twice in mirrored order (each time the mean of the "
                "two).", ""]
    if c:
        why = "; ".join(c["rejections"]) or "no reason given"
        return [f"**The best kernel's end-of-session evaluation was {c['status']}** ({why}). Figures: its "
                "evaluation during the search, against baselines timed when the session began.", ""]
    return ["Figures: the best kernel's evaluation during the search, against baselines timed when the session "
            "began (no end-of-session evaluation: `--no-confirm`, or the session did not end).", ""]


def _table(s: dict[str, Any]) -> list[str]:
    names = sorted({k for r in s["shapes"] for k in r["baselines_us"]})
    gpu = s["mode"] == "gpu"
    head = ["shape", "phase", "weight", "time µs", "timing"] + [f"{n} µs" for n in names]
    if gpu:
        head += [f"× {n}" for n in names] + ["SOL", "SOL (calibrated)", "SOL (launch-adj.)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in s["shapes"]:
        cells = [r["shape"], r["phase"], f"{r['weight']:g}", _f(r["time_us"]), r["method"] or ""]
        cells += [_f(r["baselines_us"].get(n)) for n in names]
        if gpu:
            cells += [speedup_text(r["speedup"].get(n)) for n in names]
            flag = " (flagged: roofline undercounts)" if r["sol_flag"] else ""
            cells += [_f(r["sol"], "{:.3f}") + flag, _f(r["sol_calibrated"], "{:.3f}"),
                      _f(r["sol_launch_adjusted"], "{:.3f}")]
        out.append("| " + " | ".join(cells) + " |")
    return out


def _f(x: float | None, fmt: str = "{:.2f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def _trajectory(folder: SessionFolder) -> list[str]:
    events = read_events(folder.journal_path).events
    out = ["| version | candidate | status | decision |", "|---|---|---|---|"]
    names = {e.data.get("candidate"): e.data.get("name", "") for e in events if e.kind == "propose"}
    decisions = {e.data["version"]: ("**promoted** " if e.data["promote"] else "") + e.data["reason"]
                 for e in events if e.kind == "accept"}
    for e in events:
        if e.kind == "evaluate":
            v = e.data["version"]
            out.append(f"| {v} | {names.get(e.data['candidate'], '')} | {e.data['status']} | "
                       f"{decisions.get(v, '').replace('|', '/')} |")
    return out


def _plots(folder: SessionFolder, spec: OpSpec, s: dict[str, Any], history: History | None = None) -> list[str]:
    """Write plots/*.png (aka.sessions.plots) and the lines of report.md that link them."""
    from aka.sessions.plots import write_plots

    weights = {x.id: x.weight for x in spec.shapes + spec.cpu_shapes}
    best = _figures_of(folder.get_eval(s["best"]), folder.get_confirmed(s["best"])) if s["best"] else None
    written, notes = write_plots(folder.root / "plots", read_events(folder.journal_path).events,
                                 folder.get_eval, best, weights, f"{spec.name} ({s['id']})", history)
    out = ["", "## Plots", ""] + [f"![{p.stem}](plots/{p.name})" for p in written]
    return out + [f"- {n}" for n in notes]


def report_path(folder: Path) -> Path:
    return Path(folder) / "report.md"
