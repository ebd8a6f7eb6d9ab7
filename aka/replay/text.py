"""`aka replay SESSION --print`: the session's story as plain text (for logs and CI)."""

from __future__ import annotations

from aka.replay import archive
from aka.replay import calls as llm_calls
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
    given = view.meta.get("llm") if isinstance(view.meta.get("llm"), dict) else {}
    if given or view.llm:
        where = f" at {given['api_base']}" if given.get("api_base") else ""
        lines.append(f"  model: {given.get('model') or ', '.join(llm_calls.totals(view.llm)['models'])}{where}; "
                     + llm_calls.totals_line(view.llm))
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


def details(view: SessionView, step: Step, full_calls: bool = False) -> list[str]:
    """Extra indented lines under a step: the per-shape table of an evaluation, the model calls behind
    a proposal (with FULL_CALLS their prompt and reply as recorded)."""
    if step.calls:
        return call_lines(view, step, full_calls)
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


def call_lines(view: SessionView, step: Step, full_calls: bool = False, indent: str = "      ") -> list[str]:
    """The calls behind STEP, compact (and in full with FULL_CALLS); a call whose file is missing says so."""
    found = llm_calls.by_number(view.llm)
    out = []
    for n in step.calls:
        call = found.get(n)
        if call is None:
            out.append(f"{indent}model call {n}: llm/{n:04d}.json is missing or unreadable (listed above)")
            continue
        out += [indent + line for line in llm_calls.compact(call, bool(step.data.get("reused")))]
        if full_calls:
            out += [(indent + "  " + line).rstrip() for text in llm_calls.full(call) for line in text.split("\n")]
    return out


def render(view: SessionView, full_calls: bool = False) -> str:
    """The story; FULL_CALLS adds every model call's prompt and reply under its step."""
    lines = header(view) + problems(view) + ["", "Timeline:"]
    all_steps = steps(view)
    if not all_steps:
        lines.append("  (no journal events)")
    for s in all_steps:
        lines.append(f"  #{s.seq:<3} {s.time[11:19] if len(s.time) >= 19 else s.time:8}  {s.kind:<8}  {s.title}")
        lines += details(view, s, full_calls)
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
        out.append("  " + llm_calls.totals_line(view.llm))
        shown = {n for s in all_steps for n in s.calls}
        out += [f"  model call {c.n} ({c.purpose}) is behind no journal event: {llm_calls.excerpt(c, 100)}"
                for c in view.llm if c.n not in shown]
    return out
