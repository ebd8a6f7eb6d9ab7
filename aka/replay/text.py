"""`aka replay SESSION --print`: the session's story as plain text (for logs and CI)."""

from __future__ import annotations

from aka.replay import archive
from aka.replay.load import SessionView, Version
from aka.replay.story import Step, steps
from aka.spec.result import EvalResult


def header(view: SessionView) -> list[str]:
    env = view.meta.get("environment") or {}
    dev = view.device
    where = "CPU (Triton interpreter)" if dev.get("interpreter") else (dev.get("name") or dev.get("kind") or "unknown")
    lines = [f"aka session {view.id}: {view.op}", f"  folder: {view.root}",
             f"  format: {view.format or 'unknown'}; device: {where}",
             "  versions: " + ", ".join(f"{k} {env.get(k)}" for k in ("aka", "torch", "triton") if env.get(k))
             + (f"; commit {str(env['git_commit'])[:12]}" if env.get("git_commit") else "")]
    best = view.versions.get(view.best) if view.best else None
    name = best.candidate.name if best and best.candidate else "?"
    lines.append(f"  best: {view.best} ({name})" if view.best else "  best: none (no correct and honest kernel)")
    return lines


def problems(view: SessionView) -> list[str]:
    if not view.problems:
        return []
    return ["", "Missing or unreadable (shown as far as it goes):"] + [f"  - {p}" for p in view.problems]


def shape_table(result: EvalResult, indent: str = "      ") -> list[str]:
    """Per-shape rows: correctness, time, baselines, speedups, SOL."""
    rows = []
    names = sorted({k for s in result.shapes for k in s.baselines})
    head = ["shape", "held-out", "correct", "time µs", "timing"] + [f"{n} µs" for n in names] + ["SOL"]
    for s in result.shapes:
        sol = s.roofline.sol if s.roofline and s.roofline.sol is not None else None
        rows.append([s.id, "yes" if s.held_out else "", {True: "yes", False: "NO", None: "-"}[s.correct],
                     _f(s.time.median_us if s.time else None), s.time.method if s.time else ""]
                    + [_f(s.baselines[n].median_us) if n in s.baselines else "" for n in names]
                    + [_f(sol, "{:.3f}")])
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows)]
    fmt = lambda r: indent + "  ".join(str(x).ljust(w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    return [fmt(head)] + [fmt(r) for r in rows]


def _f(x: float | None, fmt: str = "{:.2f}") -> str:
    return "" if x is None else fmt.format(x)


def details(view: SessionView, step: Step) -> list[str]:
    """Extra indented lines under an evaluate or accept step."""
    v: Version | None = view.versions.get(step.version) if step.version else None
    if step.kind == "evaluate":
        if v is None or v.eval is None:
            return [f"      ({step.version}: evaluation record missing)"]
        out = shape_table(v.eval)
        out += [f"      rejected by {r.rule}" + (f" at line {r.line}" if r.line else "") + f": {r.message}"
                for r in v.eval.rejections[:3]]
        return out
    if step.kind == "dropout" and step.data.get("unmasked"):
        return [f"      still unmasked: {', '.join(step.data['unmasked'])}"]
    return []


def render(view: SessionView) -> str:
    lines = header(view) + problems(view) + ["", "Timeline:"]
    all_steps = steps(view)
    if not all_steps:
        lines.append("  (no journal events)")
    for s in all_steps:
        lines.append(f"  #{s.seq:<3} {s.time[11:19] if len(s.time) >= 19 else s.time:8}  {s.kind:<8}  {s.title}")
        lines += details(view, s)
    lines += ["", "Summary:"] + summary(view, all_steps)
    grid = archive.rebuild(view)
    if grid is not None:
        lines += [""] + archive.render(grid)
    return "\n".join(lines) + "\n"


def summary(view: SessionView, all_steps: list[Step]) -> list[str]:
    stop = next((s for s in reversed(all_steps) if s.kind == "stop"), None)
    evaluated = [s for s in all_steps if s.kind == "evaluate"]
    promoted = [s.version for s in all_steps if s.promoted]
    dropouts = [s for s in all_steps if s.kind == "dropout"]
    out = [f"  stopped: {stop.data.get('reason', '?')}" if stop else
           "  not stopped: the session is still running or was interrupted",
           f"  candidates evaluated: {len(evaluated)}; promoted: {', '.join(filter(None, promoted)) or 'none'}; "
           f"dropouts: {len(dropouts)}"]
    masked = [m.id for m in view.memory if m.masked]
    out.append(f"  memory records: {len(view.memory)}" + (f" (masked: {', '.join(masked)})" if masked else ""))
    if view.llm:
        out.append(f"  LLM exchanges: {len(view.llm)}")
    return out
