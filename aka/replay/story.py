"""The journal as a story: one normalized step per event, with the version it concerns, the
incumbent at that moment and a one-line title. `--json`, `--print`, the HTML page and the TUI all
read these steps."""

from __future__ import annotations

import difflib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from aka.agent.qd.history import migrated_after
from aka.replay import archive
from aka.replay import calls as llm_calls
from aka.replay.load import SessionView
from aka.spec.result import speedup_text

KINDS = ("config", "setup", "profile", "retrieve", "select", "propose", "batch", "evaluate", "confirm", "accept",
         "reflect", "archive", "decide", "dropout", "migrate", "prompt", "stop", "resume", "error")
STEP_FORMAT = "aka.replay/1"


@dataclass
class Step:
    """One journal event, normalized."""

    seq: int
    time: str
    kind: str
    title: str
    """One line saying what happened."""
    iteration: int
    """Candidates evaluated before this event."""
    version: str | None = None
    """The candidate folder this event is about (vNNN), if any."""
    incumbent: str | None = None
    """The incumbent when this event happened (after it, for a promotion)."""
    promoted: bool = False
    data: dict[str, Any] = field(default_factory=dict)
    calls: list[int] = field(default_factory=list)
    """The model calls (llm/NNNN.json numbers) behind this event: a proposal's or a prompt rewrite's."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def steps(view: SessionView) -> list[Step]:
    """Every event of the journal as a Step, in order."""
    versions_by_hash = _versions_by_hash(view)
    out: list[Step] = []
    iteration, incumbent = 0, None
    for e in view.events:
        d = e.data if isinstance(e.data, dict) else {}
        version = d.get("version") if isinstance(d.get("version"), str) else None
        if e.kind == "propose" and d.get("candidate"):
            version = versions_by_hash.get(d["candidate"])
        promoted = e.kind == "accept" and bool(d.get("promote"))
        if promoted:
            incumbent = version
        if e.kind == "profile" and version is None:
            version = incumbent
        out.append(Step(e.seq, e.time, e.kind, _title(e.kind, d, version), iteration, version, incumbent,
                        promoted, d, _calls(d)))
        if e.kind == "evaluate":
            iteration += 1
    return out


def _calls(d: dict[str, Any]) -> list[int]:
    """The model call an event names (`llm_call`: a proposal's or a prompt rewrite's)."""
    n = d.get("llm_call")
    return [n] if isinstance(n, int) and not isinstance(n, bool) else []


def _versions_by_hash(view: SessionView) -> dict[str, str]:
    found = {}
    for e in view.events:
        if e.kind == "evaluate" and e.data.get("candidate") and e.data.get("version"):
            found[e.data["candidate"]] = e.data["version"]
    for v in view.versions.values():
        if v.candidate is not None:
            found.setdefault(v.candidate.short, v.name)
    return found


def _title(kind: str, d: dict[str, Any], version: str | None) -> str:
    """One line: a multi-line message (a compiler's traceback in a rejection) keeps its first line."""
    fn = _TITLES.get(kind)
    try:
        text = fn(d, version) if fn else f"{kind}: {_brief(d)}"
    except (KeyError, TypeError, ValueError, AttributeError):  # an older or odd event: say what it holds
        text = f"{kind}: {_brief(d)}"
    return _line(text)


def _line(text: str) -> str:
    first, _, rest = str(text).strip().partition("\n")
    return first.rstrip() + (" …" if rest.strip() else "")


def _brief(d: dict[str, Any], limit: int = 160) -> str:
    text = json.dumps(d, default=str, sort_keys=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _config(d, _v):
    c = d.get("config") or {}
    return f"session {d.get('session', '?')}: {d.get('op', '?')}, budget {c.get('iterations', '?')} candidates"


def _setup(d, _v):
    dev = d.get("device") or {}
    where = "CPU (Triton interpreter)" if d.get("interpreter") else (dev.get("name") or dev.get("kind") or "?")
    return f"setup {d.get('op', '')} on {where}"


def _profile(d, v):
    if d.get("skipped"):
        return f"profile {v or ''} skipped: {d['skipped']}".replace("  ", " ")
    if not v:
        return "profile: no incumbent yet"
    first = (d.get("summary") or "").strip().splitlines()
    return f"profiled {v} at {d.get('shape', '?')}" + (f": {first[0]}" if first else "")


def _retrieve(d, _v):
    if d.get("skipped"):
        return f"retrieve skipped: {d['skipped']}"
    hits = d.get("hits") or []
    return f"retrieved {len(hits)} snippet(s): " + ", ".join(str(h.get("source", "?")).rsplit("/", 1)[-1]
                                                           for h in hits[:4]) + (" …" if len(hits) > 4 else "")


def _propose(d, v):
    if d.get("exhausted"):
        return f"the {d.get('proposer', 'proposer')} has nothing left to try"
    params = ", ".join(f"{k}={val}" for k, val in (d.get("params") or {}).items())
    return (f"proposed {v + ' ' if v else ''}{d.get('name', '?')} ({d.get('origin', '?')})"
            + (f" [{params}]" if params else "") + (f": {d['change']}" if d.get("change") else ""))


def _evaluate(d, v):
    why = _line((d.get("rejections") or [""])[0])
    return (f"{v} {d.get('status', '?')}" + (" (recovered from disk)" if d.get("recovered") else "")
            + (f": {why}" if why else "") + (f" in {d['wall_s']:.1f} s" if d.get("wall_s") else ""))


def _confirm(d, v):
    sp = [x.get("torch.compile") for x in (d.get("speedup") or {}).values() if isinstance(x, dict)]
    sp = [x for x in sp if isinstance(x, (int, float))]
    return (f"{v} evaluated again at the end, baselines interleaved: {d.get('status', '?')}"
            + (f", {speedup_text(min(sp), '')}–{speedup_text(max(sp))} torch.compile" if sp else "")
            + (f": {_line(d['rejections'][0])}" if d.get("rejections") else ""))


def _accept(d, v):
    what = "promoted to incumbent" if d.get("promote") else "not promoted"
    return f"{v} {what}: {_line(d.get('reason', ''))}"


def _reflect(d, _v):
    return f"memory {d.get('record', '?')} ({d.get('kind', '?')}, {d.get('verdict', '?')}): {d.get('lesson', '')}"


def _decide(d, _v):
    stop = d.get("stop")
    sol = d.get("incumbent_sol")
    stall = d.get("stall", 0)
    stall = f"{stall:.2f}".rstrip("0").rstrip(".") if isinstance(stall, float) else stall
    return (f"after {d.get('iteration', '?')} candidates (stall {stall})"
            + (f", incumbent SOL {sol:.3f}" if isinstance(sol, (int, float)) else "")
            + (f": stop — {stop}" if stop else ": continue"))


def _dropout(d, _v):
    masked = d.get("masked") or []
    return (f"dropout #{d.get('number', '?')}: masked {len(masked)} memory record(s)"
            + (f" ({', '.join(masked)})" if masked else "")
            + (f", moving away from {', '.join(d['avoid_families'])}" if d.get("avoid_families") else ""))


def _batch(d, _v):
    versions, ran = d.get("versions") or [], d.get("evaluated") or []
    kept = [v for v in versions if v not in ran]
    return (f"batch of {len(versions)} evaluated side by side: {', '.join(ran) or 'none'}"
            + (f" ({', '.join(kept)} already on disk)" if kept else ""))


def _stop(d, _v):
    return f"stopped: {d.get('reason', '?')}; incumbent {d.get('incumbent') or 'none'}"


def _resume(d, _v):
    return ("resumed" + (f" at {', '.join(d['next'])}" if d.get("next") else "")
            + (f" after {', '.join(d['completing'])} (its update was saved)" if d.get("completing") else "")
            + (f": {d['note']}" if d.get("note") else ""))


def _error(d, _v):
    return f"error {d.get('type', '')}: {d.get('message', '')}"


def _select(d, _v):
    aim = f" toward {d['target']}" if d.get("target") else ""
    parent = f" from {d['parent']} ({d.get('selection')})" if d.get("parent") else ""
    return (f"island {d.get('island', '?')} generation {d.get('generation', '?')}: {d.get('mode', '?')}{parent}{aim}"
            + (f", inspirations {', '.join(i['version'] for i in d['inspirations'])}" if d.get("inspirations") else "")
            + (f", prompt {d['prompt']}" if d.get("prompt") else ""))


def _archive(d, v):
    a = d.get("archive") or {}
    fit = f" fitness {d['fitness']:.3f}" if isinstance(d.get("fitness"), (int, float)) else ""
    return (f"{v or d.get('version', '?')} -> island {d.get('island', '?')} {d.get('cell', '?')}{fit}: "
            f"{d.get('verdict', '?')} ({a.get('cells', '?')} cells filled)")


def _migrate(d, _v):
    moved = [m for m in d.get("moves") or [] if m.get("verdict") in ("new cell", "replaced")]
    return f"migration after generation {migrated_after(d)}: {len(moved)} of {len(d.get('moves') or [])} offered elite(s) moved"


def _prompt(d, _v):
    if d.get("failure"):
        return f"prompt rewrite of '{d.get('section')}' in {d.get('parent')} failed: {d['failure']}"
    if d.get("origin") == "seed":
        return f"prompt {d.get('created')}: the seed system prompt"
    return f"prompt {d.get('created')}: '{d.get('section')}' of {d.get('parent')} rewritten by the model"


_TITLES = {"config": _config, "setup": _setup, "profile": _profile, "retrieve": _retrieve, "propose": _propose,
           "evaluate": _evaluate, "confirm": _confirm, "accept": _accept, "reflect": _reflect, "decide": _decide,
           "dropout": _dropout, "stop": _stop, "resume": _resume, "error": _error, "select": _select,
           "archive": _archive, "migrate": _migrate, "prompt": _prompt, "batch": _batch}


def incumbent_before(all_steps: list[Step], version: str) -> str | None:
    """The incumbent when VERSION was evaluated (what its diff is against)."""
    for s in all_steps:
        if s.kind == "evaluate" and s.version == version:
            return s.incumbent if s.incumbent != version else None
    return None


def diff(view: SessionView, version: str, against: str | None) -> str:
    """Unified diff of VERSION's source against AGAINST's ('' when either is missing)."""
    new = view.versions.get(version)
    old = view.versions.get(against) if against else None
    if new is None or new.source is None:
        return ""
    if old is None or old.source is None:
        return ""
    return "".join(difflib.unified_diff(old.source.splitlines(keepends=True), new.source.splitlines(keepends=True),
                                        fromfile=f"{against}/candidate.py", tofile=f"{version}/candidate.py"))


def document(view: SessionView) -> dict[str, Any]:
    """The `--json` document: the session's identity, what is missing, the normalized steps and, for
    an LLM session, the model calls (`llm`: the totals; `calls`: every call, normalized, with the
    steps it is behind)."""
    doc_steps = steps(view)
    doc = {"format": STEP_FORMAT, "session": view.id, "path": str(view.root), "op": view.op,
           "session_format": view.format, "device": view.device, "best": view.best,
           "versions": sorted(view.versions), "problems": list(view.problems),
           "events": [s.to_dict() for s in doc_steps]}
    if view.llm or any(s.calls for s in doc_steps):
        given = view.meta.get("llm")
        doc["llm"] = {**(given if isinstance(given, dict) else {}), **llm_calls.totals(view.llm)}
        doc["calls"] = [_call_doc(c, doc_steps) for c in view.llm]
    grid = archive.rebuild(view)
    if grid is not None:
        doc["archive"] = archive.document(grid)
    return doc


def _call_doc(call: llm_calls.Call, all_steps: list[Step]) -> dict[str, Any]:
    mine = [s for s in all_steps if call.n in s.calls]
    version = next((s.version for s in mine if s.version), None)
    return call.to_dict([s.seq for s in mine], version)
