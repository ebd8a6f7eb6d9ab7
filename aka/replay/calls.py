"""The model calls of an LLM session (`llm/NNNN.json`), read as recorded and normalized for replay:
the figures, the request cut into its prompt sections with their sizes, the reply and its prose.

Replay shows each record as it is: nothing is added to what the request contained, so nothing the
model was not shown (held-out shapes, roofline figures) appears through a call. A call file that is
missing, torn or not a call record is listed as a problem, never fatal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aka.propose.calls import FORMAT

EXCERPT = 240
"""Characters of the model's prose shown in the compact views."""


@dataclass
class Section:
    """One part of a request: a `## ` section of a message, or a whole message that has none."""

    message: int
    """Index of the message in the request."""
    role: str
    title: str
    text: str

    @property
    def chars(self) -> int:
        return len(self.text)

    @property
    def short(self) -> str:
        """The title without its detail ('Incumbent (the kernel to beat: ...)' -> 'Incumbent')."""
        return self.title.split(" (", 1)[0].split(":", 1)[0].strip() or self.title


@dataclass
class Call:
    """One recorded call, normalized (aka.propose.calls.CallRecord, read leniently)."""

    n: int
    file: str
    """Path inside the session (llm/NNNN.json)."""
    record: dict[str, Any]
    """The record as read."""
    messages: list[dict[str, str]] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)

    def get(self, key: str, default: Any = None) -> Any:
        return self.record.get(key, default)

    @property
    def purpose(self) -> str:
        return str(self.get("purpose") or "propose")

    @property
    def model(self) -> str:
        return str(self.get("model") or "?")

    @property
    def reply(self) -> str:
        reply = self.get("reply")
        return reply if isinstance(reply, str) else json.dumps(reply, default=str)

    @property
    def prompt_tokens(self) -> int:
        return _int(self.get("prompt_tokens"))

    @property
    def completion_tokens(self) -> int:
        return _int(self.get("completion_tokens"))

    @property
    def cost_usd(self) -> float:
        return _float(self.get("cost_usd"))

    @property
    def latency_s(self) -> float:
        return _float(self.get("latency_s"))

    @property
    def retries(self) -> list[str]:
        r = self.get("retries")
        return [str(x) for x in r] if isinstance(r, list) else []

    @property
    def attempts(self) -> int:
        return _int(self.get("attempts")) or 1

    @property
    def profile(self) -> bool:
        """Whether the request held the profiler's summary."""
        return any(s.title.startswith("Profile of the incumbent") for s in self.sections)

    @property
    def snippets(self) -> tuple[int, int]:
        """(retrieved snippets in the request, snippets the size cap left out)."""
        shown = left = 0
        for s in self.sections:
            if s.title.startswith("Retrieved knowledge"):
                shown += sum(1 for line in _outside_fences(s.text) if line.startswith("### "))
                m = re.search(r"^\[(\d+) more snippets left out\]", s.text, re.M)
                left += int(m.group(1)) if m else 0
        return shown, left

    @property
    def prompt_chars(self) -> int:
        return sum(len(str(m.get("content", ""))) for m in self.messages)

    @property
    def prose(self) -> str:
        """What the model said before its code (or search/replace blocks), in one line."""
        head = re.split(r"```|<{5,}", self.reply, maxsplit=1)[0]
        return " ".join(head.split())

    def to_dict(self, steps: list[int] | None = None, version: str | None = None) -> dict[str, Any]:
        """The `--json` form: the record's own fields, then what replay derived from it."""
        shown, left = self.snippets
        return {**self.record, "n": self.n, "file": self.file, "steps": steps or [], "version": version,
                "prompt_chars": self.prompt_chars, "profile_included": self.profile, "snippets": shown,
                "snippets_left_out": left, "prose": self.prose,
                "sections": [{"message": s.message, "role": s.role, "title": s.title, "chars": s.chars}
                             for s in self.sections]}


def read(root: Path, events: list, problems: list[str]) -> list[Call]:
    """Every readable `llm/*.json` of the session at ROOT, in call order; what is missing (a call the
    journal names, a gap in the numbering) or unreadable goes to PROBLEMS."""
    folder = root / "llm"
    out: list[Call] = []
    seen: set[int] = set()
    for f in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        label = f"llm/{f.name}"
        number = _number(f.name)
        if number is not None:
            seen.add(number)
        try:
            data = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            problems.append(f"{label}: unreadable ({type(exc).__name__}: {exc})")
            continue
        call = _call(data, label, number, problems)
        if call is not None:
            out.append(call)
            seen.add(call.n)
    _missing(events, out, seen, problems)
    return sorted(out, key=lambda c: c.n)


def _call(data: Any, label: str, number: int | None, problems: list[str]) -> Call | None:
    if not isinstance(data, dict):
        problems.append(f"{label}: not a call record (a JSON {type(data).__name__})")
        return None
    n = data.get("n") if isinstance(data.get("n"), int) else number
    if n is None:
        problems.append(f"{label}: not a call record (no call number)")
        return None
    if data.get("format") != FORMAT:
        problems.append(f"{label}: format {data.get('format')!r} (this aka writes {FORMAT!r}); "
                        "showing what can be read")
    messages = data.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        problems.append(f"{label}: its request messages are not a list of messages; shown without them")
        messages = []
    messages = [{"role": str(m.get("role", "?")), "content": _text(m.get("content"))} for m in messages]
    return Call(n, label, data, messages, sections(messages))


def _missing(events: list, calls: list[Call], seen: set[int], problems: list[str]) -> None:
    """A call the journal names whose file is absent, and gaps in the numbering."""
    named: dict[int, str] = {}
    for e in events:
        n = e.data.get("llm_call") if isinstance(e.data, dict) else None
        if isinstance(n, int) and not isinstance(n, bool) and n not in named:
            named[n] = f"the journal's {e.kind} event #{e.seq} names call {n}"
    top = max([*seen, *named], default=0)
    for n in range(1, top + 1):
        if n not in seen:
            problems.append(f"llm/{n:04d}.json: missing ({named.get(n, 'later calls are recorded')})")


def sections(messages: list[dict[str, str]]) -> list[Section]:
    """The request cut at its `## ` headings (outside code fences); a message without headings,
    such as the system prompt or an earlier reply, is one section named after its role."""
    out: list[Section] = []
    for i, m in enumerate(messages):
        role, content = m["role"], m["content"]
        parts: list[tuple[str, list[str]]] = []
        fenced = False
        for line in content.split("\n"):
            if line.startswith("```"):
                fenced = not fenced
            if not fenced and line.startswith("## "):
                parts.append((line[3:].strip(), [line]))
            elif parts:
                parts[-1][1].append(line)
            else:
                parts.append(("", [line]))
        for title, lines in parts:
            text = "\n".join(lines)
            if title or text.strip():
                out.append(Section(i, role, title or _untitled(role, i, len(parts)), text))
    return out


def _untitled(role: str, index: int, parts: int) -> str:
    if role == "system":
        return "system prompt"
    if role == "assistant":
        return "the model's earlier reply"
    return "message" if parts == 1 else "preamble"


def by_number(calls: list[Call]) -> dict[int, Call]:
    return {c.n: c for c in calls}


def totals(calls: list[Call]) -> dict[str, Any]:
    """Calls, tokens, cost, latency and retries over the session's readable call records."""
    purposes: dict[str, int] = {}
    for c in calls:
        purposes[c.purpose] = purposes.get(c.purpose, 0) + 1
    models = sorted({c.model for c in calls})
    return {"calls": len(calls), "purposes": purposes, "models": models,
            "prompt_tokens": sum(c.prompt_tokens for c in calls),
            "completion_tokens": sum(c.completion_tokens for c in calls),
            "cost_usd": round(sum(c.cost_usd for c in calls), 6),
            "latency_s": round(sum(c.latency_s for c in calls), 3),
            "retries": sum(len(c.retries) for c in calls)}


def totals_line(calls: list[Call]) -> str:
    t = totals(calls)
    kinds = ", ".join(f"{n} {p}" for p, n in t["purposes"].items())
    return (f"{t['calls']} model call(s) ({kinds}) to {', '.join(t['models'])}: {t['prompt_tokens']} tokens in, "
            f"{t['completion_tokens']} out, ${t['cost_usd']:.4f}, {t['latency_s']:.2f} s"
            + (f", {t['retries']} retried attempt(s)" if t["retries"] else ""))


def head(call: Call, reused: bool = False) -> str:
    """One line: purpose, model, tokens, cost, latency, attempts, what the reply gave."""
    code = call.get("extraction") or "?"
    got = (f"reply: {code}" if call.purpose == "meta-prompt" else f"code: {code}" if call.get("candidate")
           else f"no usable code: {code}")
    finish = f", finish {call.get('finish_reason')}" if call.get("finish_reason") else ""
    return (f"model call {call.n} ({call.purpose}) {call.model}: {call.prompt_tokens} tokens in / "
            f"{call.completion_tokens} out, ${call.cost_usd:.4f}, {call.latency_s:.2f} s, "
            f"{call.attempts} attempt(s){finish}; {got}"
            + ("; reused from the session's record, not sent again" if reused else ""))


def layout(call: Call) -> str:
    """The request's messages and sections with their sizes, in one line."""
    groups = []
    for i, m in enumerate(call.messages):
        mine = [s for s in call.sections if s.message == i]
        if len(mine) == 1 and mine[0].title in ("system prompt", "the model's earlier reply", "message"):
            groups.append(f"{m['role']} {mine[0].chars}")
        else:
            groups.append(f"{m['role']}: " + ", ".join(f"{s.short} {s.chars}" for s in mine))
    return f"prompt {call.prompt_chars} chars in {len(call.messages)} message(s): " + "; ".join(groups)


def inputs(call: Call) -> str:
    """Whether the profile summary and retrieved snippets were in a proposal's request ('' for a
    meta-prompt rewrite, whose request holds neither)."""
    if call.purpose == "meta-prompt":
        return ""
    shown, left = call.snippets
    return (f"profile summary: {'included' if call.profile else 'not in the prompt'}; retrieved snippets: "
            + (f"{shown}" if shown else "none") + (f" ({left} more left out by the size cap)" if left else ""))


def excerpt(call: Call, limit: int = EXCERPT) -> str:
    text = call.prose
    if not text:
        return "(no prose before the code)"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact(call: Call, reused: bool = False) -> list[str]:
    """The compact view: the head line, the prompt's layout, its inputs, the model's prose, retries."""
    out = [head(call, reused), "  " + layout(call)] + (["  " + inputs(call)] if inputs(call) else [])
    out.append(f"  says: {excerpt(call)}")
    out += [f"  retry: {r}" for r in call.retries]
    return out


def full(call: Call) -> list[str]:
    """The request section by section and the reply, as recorded."""
    out = []
    for s in call.sections:
        out += [f"── request message {s.message} ({s.role}): {s.title} ({s.chars} chars) ──",
                s.text.rstrip("\n")]
    out += [f"── reply ({len(call.reply)} chars) ──", call.reply.rstrip("\n")]
    return out


def _outside_fences(text: str) -> list[str]:
    lines, fenced = [], False
    for line in text.split("\n"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _number(name: str) -> int | None:
    m = re.fullmatch(r"(\d+)\.json", name)
    return int(m.group(1)) if m else None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, default=str)


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _float(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0
