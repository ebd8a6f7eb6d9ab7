"""Summarize one `aka optimize --model` session as Markdown: each candidate (where it came from, the
model call that wrote it, the harness's verdict, the loop's decision), what reached the prompts
(profile summary, retrieved knowledge), a grep of every recorded request for held-out data, and the
best kernel per shape from the run's `--json` document.

  python tools/llm_session_summary.py SESSION_DIR [--json OPTIMIZE.json] [--requests SERVER_LOG.jsonl]

Exit status 1 when a held-out shape id, held-out parameters or a roofline expression is found in a
recorded request, else 0.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml


def events(session: Path) -> list[dict]:
    out = []
    for line in (session / "events.jsonl").read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue                                         # a torn last line
    return out


def calls(session: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted((session / "llm").glob("[0-9]*.json"))]


def candidate_rows(evs: list[dict]) -> list[str]:
    rows = ["| version | proposal | from | tokens (prompt+completion) | harness | decision |", "|---|---|---|---|---|---|"]
    proposal: dict = {}
    pending: dict | None = None
    for e in evs:
        kind, d = e.get("kind"), e.get("data") or {}
        if kind == "propose":
            proposal = d
        elif kind == "evaluate":
            pending = {"version": d.get("version"), "status": d.get("status"), "p": proposal}
        elif kind == "accept" and pending is not None:
            p = pending["p"]
            if p.get("llm_call"):
                src = f"model call {p['llm_call']} ({p.get('purpose')}{', reused' if p.get('reused') else ''})"
                tok = str(p.get("tokens", ""))
            elif p.get("handoff"):
                h = p["handoff"]
                src = f"tuner: point {h['point']}/{h['budget']} of {h['from']}'s space ({h['space']} points)"
                tok = "-"
            else:
                src, tok = p.get("proposer", "?"), "-"
            name = p.get("name", "")
            if p.get("params"):
                name += " " + ", ".join(f"{k}={v}" for k, v in sorted(p["params"].items()))
            verdict = ("**promoted**: " if d.get("promote") else "") + _short(d.get("reason", ""), 90)
            rows.append(f"| {pending['version']} | {name} | {src} | {tok} | {pending['status']} | {verdict} |")
            pending = None
    return rows


def prompt_rows(recorded: list[dict]) -> list[str]:
    rows = ["| call | purpose | profile summary in the prompt | retrieved snippets in the prompt |", "|---|---|---|---|"]
    for c in recorded:
        text = "\n".join(m.get("content", "") for m in c.get("messages", []))
        prof = _section(text, "## Profile of the incumbent")
        know = _section(text, "## Retrieved knowledge")
        sources = [line.rsplit("source: ", 1)[-1] for line in know.splitlines() if line.startswith("### ")]
        first = _short(prof.splitlines()[1] if len(prof.splitlines()) > 1 else "", 80) if prof else "no"
        rows.append(f"| {c['n']} | {c.get('purpose')} | {first} | {len(sources)}: {', '.join(sources[:3])}"
                    + (" ..." if len(sources) > 3 else "") + " |")
    return rows


def leaks(op_path: Path, texts: list[str]) -> list[str]:
    """Held-out shape ids, held-out parameter sets and roofline expressions found in the texts."""
    spec = yaml.safe_load(op_path.read_text(encoding="utf-8"))
    needles = []
    for key in ("held_out_shapes", "cpu_held_out_shapes"):
        for s in spec.get(key) or []:
            needles += [s["id"], json.dumps(s.get("params", {}))]
    roof = spec.get("roofline") or {}
    for key in ("flops", "bytes"):
        value = roof.get(key)
        exprs = value.values() if isinstance(value, dict) else [value]
        needles += [str(x) for x in exprs if isinstance(x, str) and x != "auto"]
    return sorted({n for n in needles for t in texts if n and n in t})


def shape_rows(doc: dict) -> list[str]:
    rows = ["| shape | phase | best µs | timing | eager µs | compile µs | × eager | × compile | SOL | SOL launch-adj. |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for s in doc.get("shapes", []):
        base, sp = s.get("baselines_us") or {}, s.get("speedup") or {}
        rows.append("| " + " | ".join([s["shape"], s.get("phase", ""), _num(s.get("time_us")), s.get("method", ""),
                                       _num(base.get("eager")), _num(base.get("torch.compile")),
                                       _x(sp.get("eager")), _x(sp.get("torch.compile")),
                                       _num(s.get("sol"), 3), _num(s.get("sol_launch_adjusted"), 3)]) + " |")
    return rows


def _section(text: str, head: str) -> str:
    i = text.find(head)
    if i < 0:
        return ""
    j = text.find("\n## ", i + len(head))
    return text[i: j if j >= 0 else len(text)]


def _short(text: str, n: int) -> str:
    text = " ".join(str(text).split()).replace("|", "/")
    return text if len(text) <= n else text[: n - 3] + "..."


def _num(v, digits: int = 2) -> str:
    return "-" if v is None else f"{v:.{digits}f}"


def _x(v) -> str:
    return "-" if v is None else f"{v:.2f}×"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("session", type=Path)
    ap.add_argument("--json", type=Path, help="the `aka optimize --json` document of the run")
    ap.add_argument("--requests", type=Path, help="the scripted server's request log (JSONL)")
    args = ap.parse_args(argv)
    if not (args.session / "events.jsonl").is_file():
        print(f"error: {args.session}: no events.jsonl (not a session folder)", file=sys.stderr)
        return 2
    meta = json.loads((args.session / "session.json").read_text(encoding="utf-8"))
    recorded = calls(args.session)
    texts = [json.dumps(c.get("messages", []), ensure_ascii=False) for c in recorded]
    texts += [json.dumps(c.get("messages", [])) for c in recorded]              # both escapings
    if args.requests and args.requests.is_file():
        texts += args.requests.read_text(encoding="utf-8").splitlines()
    found = leaks(Path(meta["op"]["path"]), texts)
    doc = json.loads(args.json.read_text(encoding="utf-8")) if args.json and args.json.is_file() else {}
    llm = doc.get("llm") or {}
    out = [f"## {meta['id']}: {meta['op']['name']} with {meta.get('llm', {}).get('model')}", "",
           *candidate_rows(events(args.session)), "", *prompt_rows(recorded), ""]
    if doc:
        out += [f"best: {doc.get('best')} ({doc.get('best_name')}); stop: {doc.get('stop_reason')}; "
                f"mode: {doc.get('mode')}; model calls: {llm.get('calls')} ({llm.get('tokens')} tokens, "
                f"{llm.get('latency_s')} s, ${llm.get('cost_usd')})", "", *shape_rows(doc), ""]
    out.append(f"held-out data in the {len(recorded)} recorded requests"
               + (" and the server's log" if args.requests else "") + ": "
               + ("none (ids, parameter sets, roofline expressions)" if not found else "FOUND " + ", ".join(found)))
    print("\n".join(out))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
