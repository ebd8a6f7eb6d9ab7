"""What the inspector shows for one step: the candidate's source and diff, the per-shape table, the
verdict with rule and line, the profile, retrieved knowledge, memory (masked marked), the tuner's
parameter points and the model calls behind a proposal — as plain text sections."""

from __future__ import annotations

import json
from typing import Any

from aka.replay import archive
from aka.replay import calls as llm_calls
from aka.replay.load import SessionView
from aka.replay.story import Step, diff, incumbent_before
from aka.replay.text import shape_table


def sections(view: SessionView, step: Step, all_steps: list[Step], full_calls: bool = False) -> list[tuple[str, str]]:
    """(title, body) pairs for STEP, most useful first; FULL_CALLS adds the model calls' prompt and
    reply as recorded."""
    out = [("step", _head(step))]
    v = view.versions.get(step.version) if step.version else None
    calls = calls_of(step, all_steps)
    if step.kind in ("propose", "prompt"):
        out += _calls(view, step, calls, full_calls)
    if step.kind in ("evaluate", "accept", "propose") and step.version:
        out += _candidate(view, step, all_steps)
    if step.kind == "profile":
        text = step.data.get("summary") or step.data.get("skipped") or ""
        if not text and v is not None and v.profile:
            text = v.profile
        out.append(("profile summary", text or "(no profile)"))
    if step.kind == "retrieve":
        out.append(("retrieved knowledge", _hits(step.data)))
    if step.kind in ("reflect", "dropout"):
        out.append(("memory records", memory(view, step)))
    if step.kind == "propose":
        out.append(("tuner parameter points", tuner_points(all_steps, step)))
    if step.kind in ("select", "archive", "migrate", "prompt"):
        out += search_sections(view, step)
    if step.kind in ("evaluate", "accept"):
        out += _calls(view, step, calls, full_calls)
    if step.kind in ("config", "setup", "decide", "stop", "resume", "error") or not out[1:]:
        out.append(("event data", json.dumps(step.data, indent=1, default=str)))
    return out


def text(view: SessionView, step: Step, all_steps: list[Step], full_calls: bool = False) -> str:
    return "\n\n".join(f"── {title} ──\n{body}" for title, body in sections(view, step, all_steps, full_calls))


def _head(step: Step) -> str:
    lines = [f"#{step.seq} {step.kind} at {step.time}", step.title]
    if step.version:
        lines.append(f"version {step.version}; incumbent {step.incumbent or 'none'}; {step.iteration} evaluated before")
    return "\n".join(lines)


def _candidate(view: SessionView, step: Step, all_steps: list[Step]) -> list[tuple[str, str]]:
    v = view.versions.get(step.version)
    if v is None:
        return [("candidate", f"{step.version}: the candidate's folder is missing")]
    out = []
    if v.eval is not None:
        verdict = [f"{v.eval.status.value} ({v.eval.mode}, {v.eval.dtype})"]
        verdict += [f"rule {r.rule}" + (f", line {r.line}" if r.line else "") + (f" of {r.file}" if r.file else "")
                    + (f", shape {r.shape}" if r.shape else "") + f": {r.message}" for r in v.eval.rejections]
        out.append(("honesty and correctness verdict", "\n".join(verdict)))
        out.append(("per-shape evaluation", "\n".join(shape_table(v.eval, ""))))
    else:
        out.append(("verdict", f"{step.version}: no evaluation record (eval.json missing)"))
    if v.decision is not None:
        out.append(("decision", ("promoted" if v.decision.promote else "not promoted") + f": {v.decision.reason}"))
    against = incumbent_before(all_steps, step.version)
    d = diff(view, step.version, against)
    out.append((f"diff against the incumbent {against}" if against else "diff", d or "(no incumbent to diff against)"))
    out.append(("source", v.source if v.source is not None else "(candidate.py missing)"))
    return out


def _hits(data: dict[str, Any]) -> str:
    if data.get("skipped"):
        return f"skipped: {data['skipped']}"
    return "\n".join(f"{h.get('score', 0):.3f}  [{h.get('layer', '?')}]  {h.get('source', '?')}"
                     for h in data.get("hits") or []) or "(nothing retrieved)"


def memory(view: SessionView, step: Step) -> str:
    """Every memory record, masked ones marked (as the session's files hold them now)."""
    lines = []
    for m in view.memory:
        mark = f"[MASKED by dropout {m.masked_by}]" if m.masked else ("[protected]" if m.protected else "")
        lines.append(f"{m.id} {m.version} {m.kind} {m.verdict} {mark}".rstrip() + f"\n    {m.lesson}")
    if step.kind == "dropout":
        lines.insert(0, f"this dropout masked: {', '.join(step.data.get('masked') or []) or 'nothing'}")
    return "\n".join(lines) or "(no memory records)"


def tuner_points(all_steps: list[Step], upto: Step) -> str:
    """The parameter points proposed so far, this one marked."""
    lines = []
    for s in all_steps:
        if s.kind == "propose" and not s.data.get("exhausted") and s.seq <= upto.seq:
            params = ", ".join(f"{k}={v}" for k, v in (s.data.get("params") or {}).items()) or "(defaults)"
            mark = "→ " if s.seq == upto.seq else "  "
            lines.append(f"{mark}{s.version or '?'}  {s.data.get('name', '?')}  {params}")
    return "\n".join(lines) or "(none)"


def search_sections(view: SessionView, step: Step) -> list[tuple[str, str]]:
    """Map-elites steps: the directive, the archive grid as of this step, a prompt version."""
    out = []
    if step.kind == "select":
        out.append(("directive", json.dumps(step.data, indent=1, default=str)))
    if step.kind == "prompt" and step.data.get("version"):
        v = step.data["version"]
        out.append((f"prompt version {v['id']}", "\n\n".join(f"[{k}]\n{t}" for k, t in v["sections"].items())))
        if v.get("diff"):
            out.append(("the model's search/replace blocks", v["diff"]))
    grid = archive.rebuild(view, upto=step.seq)
    if grid is not None:
        out.append(("archive at this step", "\n".join(archive.render(grid))))
    return out


def calls_of(step: Step, all_steps: list[Step]) -> list[int]:
    """The model calls behind STEP: its own, or for an evaluation or decision those of the proposal
    of its candidate."""
    if step.calls or step.kind not in ("evaluate", "accept") or not step.version:
        return step.calls
    proposals = [s for s in all_steps if s.kind == "propose" and s.version == step.version and s.seq < step.seq]
    return proposals[-1].calls if proposals else []


def _calls(view: SessionView, step: Step, numbers: list[int], full: bool) -> list[tuple[str, str]]:
    found = llm_calls.by_number(view.llm)
    reused = bool(step.data.get("reused")) if step.kind in ("propose", "prompt") else False
    out = []
    for n in numbers:
        call = found.get(n)
        if call is None:
            out.append((f"model call {n}", f"llm/{n:04d}.json is missing or unreadable (see the problems below)"))
            continue
        out.append((f"model call {n} ({call.purpose})" + ("" if full else "; c shows its prompt and reply"),
                    "\n".join(llm_calls.compact(call, reused))))
        if full:
            out.append((f"model call {n}: prompt and reply as recorded", "\n".join(llm_calls.full(call))))
    return out
