"""What the inspector shows for one step: the candidate's source and diff, the per-shape table, the
verdict with rule and line, the profile, retrieved knowledge, memory (masked marked), the tuner's
parameter points and the LLM exchanges — as plain text sections."""

from __future__ import annotations

import json
from typing import Any

from aka.replay import archive
from aka.replay.load import SessionView
from aka.replay.story import Step, diff, incumbent_before
from aka.replay.text import shape_table


def sections(view: SessionView, step: Step, all_steps: list[Step]) -> list[tuple[str, str]]:
    """(title, body) pairs for STEP, most useful first."""
    out = [("step", _head(step))]
    v = view.versions.get(step.version) if step.version else None
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
    llm = [x for x in view.llm if _llm_matches(x, step, view)]
    if llm:
        out.append(("LLM request and reply", "\n\n".join(_llm(x) for x in llm)))
    if step.kind in ("config", "setup", "decide", "stop", "resume", "error") or not out[1:]:
        out.append(("event data", json.dumps(step.data, indent=1, default=str)))
    return out


def text(view: SessionView, step: Step, all_steps: list[Step]) -> str:
    return "\n\n".join(f"── {title} ──\n{body}" for title, body in sections(view, step, all_steps))


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


def _llm_matches(x: dict[str, Any], step: Step, view: SessionView) -> bool:
    """An `llm/NNNN.json` call belongs to the propose step of the candidate taken from its reply
    (a meta-prompt rewrite to its prompt step)."""
    if step.kind == "prompt":
        return step.data.get("llm_call") is not None and x.get("n") == step.data.get("llm_call")
    if step.kind != "propose" or not step.version:
        return False
    v = view.versions.get(step.version)
    cand = x.get("candidate") or ""
    if cand and v is not None and v.candidate is not None:
        return v.candidate.hash.startswith(cand) or cand.startswith(v.candidate.short)
    return x.get("version") == step.version


def _llm(x: dict[str, Any]) -> str:
    """One recorded call (aka.propose.calls.CallRecord as JSON): figures, request messages, reply."""
    tokens = (f"{x.get('prompt_tokens', 0)} prompt + {x.get('completion_tokens', 0)} completion tokens"
              if "prompt_tokens" in x else json.dumps(x.get("tokens") or x.get("usage") or {}))
    cost = x.get("cost_usd", x.get("cost", "?"))
    head = (f"{x.get('file', '')} ({x.get('purpose', 'propose')}) model {x.get('model', '?')}; {tokens}; "
            f"cost ${cost}; {x.get('latency_s', '?')} s; code: {x.get('extraction', '?')}")
    request = x.get("messages", x.get("request"))
    if isinstance(request, list):
        request = "\n".join(f"[{m.get('role', '?')}] {m.get('content', '')}" for m in request if isinstance(m, dict))
    return "\n".join([head, "request:", _as_text(request), "reply:", _as_text(x.get("reply"))])


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, indent=1, default=str)
