"""`aka replay SESSION --rerun [--from vNNN]`: the recorded candidates judged again by today's
harness on this machine, recorded against re-measured side by side. No proposer runs: the recorded
candidates (and any LLM replies behind them) are reused as they are. Times measured on another
device, or on the CPU interpreter, are marked not comparable."""

from __future__ import annotations

import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from aka.errors import InputError
from aka.replay.load import SessionView
from aka.spec.result import EvalResult


@dataclass
class RerunRow:
    """One candidate: its recorded verdict and figures beside today's."""

    version: str
    name: str
    recorded_status: str | None
    rerun_status: str | None
    recorded_device: str
    rerun_device: str
    comparable: bool
    """True only when both times come from the same device and neither is interpreter wall time."""
    shapes: list[dict[str, Any]] = field(default_factory=list)
    """Per shape id: recorded and re-measured correctness and median time (µs)."""
    note: str = ""

    @property
    def held(self) -> bool:
        return self.recorded_status == self.rerun_status


@dataclass
class RerunReport:
    session: str
    rows: list[RerunRow]
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.rows) and all(r.held for r in self.rows) and not self.problems

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "session": self.session, "problems": self.problems,
                "rows": [{**asdict(r), "held": r.held} for r in self.rows]}


def device_label(result: EvalResult | None) -> str:
    if result is None:
        return "?"
    if result.mode != "gpu":
        return "cpu-interpreter"
    return str(result.device.get("name") or result.device.get("kind") or "gpu")


def rerun(view: SessionView, from_version: str | None = None, device: str = "auto", evaluator: Any = None) -> RerunReport:
    """Re-evaluate VIEW's candidates (from FROM_VERSION on) with EVALUATOR (default: the real harness)."""
    from aka.spec.load import load_op

    names = [n for n in view.versions if from_version is None or n >= from_version]
    if from_version and from_version not in view.versions:
        raise InputError(f"--from {from_version}: no such version in {view.root} (have {', '.join(view.versions) or 'none'})")
    path = view.spec_path()
    if not path:
        raise InputError(f"{view.root}/session.json: names no operator path, so nothing can be re-run")
    spec = load_op(path)
    if evaluator is not None:
        return _run(view, spec, names, evaluator)
    from aka.evaluate.evaluator import EvalOptions, Evaluator, detect_device
    from aka.evaluate.harness import HarnessEvaluator
    from aka.evaluate.pool import WorkerPool

    seed = int((view.meta.get("config") or {}).get("seed", 0))
    with WorkerPool(detect_device(device)) as pool:
        return _run(view, spec, names, HarnessEvaluator(Evaluator(pool), EvalOptions(seed=seed)))


def _run(view: SessionView, spec, names: list[str], evaluator: Any) -> RerunReport:
    report = RerunReport(view.id, [], [])
    with tempfile.TemporaryDirectory(prefix="aka-rerun-") as tmp:
        for name in names:
            v = view.versions[name]
            if v.candidate is None or v.source is None:
                report.problems.append(f"{name}: no candidate record or source; not re-run")
                continue
            f = Path(tmp) / name / "candidate.py"            # never inside the session folder
            f.parent.mkdir(parents=True)
            f.write_text(v.source, encoding="utf-8")
            now = evaluator.evaluate(spec, v.candidate, f)
            report.rows.append(_row(name, v.candidate.name, v.eval, now))
    return report


def _row(name: str, cand_name: str, old: EvalResult | None, new: EvalResult) -> RerunRow:
    a, b = device_label(old), device_label(new)
    comparable = old is not None and a == b and new.mode == "gpu"
    note = "" if comparable else (
        "times not comparable: " + ("interpreter wall times only rank" if "cpu-interpreter" in (a, b)
                                    else f"recorded on {a}, re-measured on {b}"))
    if old is not None and old.focus:
        note = "; ".join(x for x in (f"recorded as a focused trial at {', '.join(old.focus)}; "
                                     "re-judged at every shape", note) if x)
    rec = {s.id: s for s in old.shapes} if old else {}
    shapes = []
    for s in new.shapes:
        r = rec.pop(s.id, None)
        shapes.append({"shape": s.id, "held_out": s.held_out, "recorded_correct": r.correct if r else None,
                       "rerun_correct": s.correct, "recorded_us": r.time.median_us if r and r.time else None,
                       "rerun_us": s.time.median_us if s.time else None})
    for r in rec.values():
        shapes.append({"shape": r.id, "held_out": r.held_out, "recorded_correct": r.correct, "rerun_correct": None,
                       "recorded_us": r.time.median_us if r.time else None, "rerun_us": None})
    return RerunRow(name, cand_name, old.status.value if old else None, new.status.value, a, b, comparable,
                    shapes, note)


def render_rows(report: RerunReport) -> str:
    """Recorded against re-measured, one block per candidate."""
    lines = [f"re-run of session {report.session} with today's harness on this machine"]
    for p in report.problems:
        lines.append(f"  missing: {p}")
    for r in report.rows:
        held = "held" if r.held else "CHANGED"
        lines.append(f"{r.version} {r.name}: recorded {r.recorded_status or '?'} on {r.recorded_device} -> "
                     f"now {r.rerun_status} on {r.rerun_device} ({held})" + (f"; {r.note}" if r.note else ""))
        lines.append(f"    {'shape':<24} {'recorded':>9} {'now':>9} {'recorded µs':>12} {'now µs':>12}")
        for s in r.shapes:
            lines.append(f"    {s['shape'] + (' (held-out)' if s['held_out'] else ''):<24} "
                         f"{_c(s['recorded_correct']):>9} {_c(s['rerun_correct']):>9} "
                         f"{_t(s['recorded_us'], r.comparable):>12} {_t(s['rerun_us'], r.comparable):>12}")
    if any(not r.comparable for r in report.rows):
        lines.append("* not comparable: measured on different devices, or CPU-interpreter wall times (these only rank)")
    lines.append("every verdict held" if report.ok else "some verdicts changed or candidates are missing")
    return "\n".join(lines) + "\n"


def _c(x: bool | None) -> str:
    return {True: "correct", False: "WRONG", None: "-"}[x]


def _t(x: float | None, comparable: bool) -> str:
    return "-" if x is None else f"{x:.2f}" + ("" if comparable else "*")
