"""`aka replay SESSION --html OUT`: one self-contained page (timeline, diffs against the incumbent,
per-shape tables, the plots embedded as data URIs). Nothing is written into the session: the plots
are drawn in a temporary folder."""

from __future__ import annotations

import base64
import html
import re
import tempfile
from pathlib import Path

from aka.replay import archive
from aka.replay import calls as llm_calls
from aka.replay.load import SessionView
from aka.replay.story import Step, diff, incumbent_before, steps
from aka.replay.text import header, shape_table, summary
from aka.sessions.plots import write_plots

CSS = """
body{font-family:system-ui,sans-serif;margin:1.5em;max-width:1200px;color:#222}
pre{background:#f6f8fa;padding:.6em;overflow-x:auto;font-size:12px}
table.timeline{border-collapse:collapse;width:100%;font-size:13px}
table.timeline td{border-bottom:1px solid #eee;padding:2px 6px;vertical-align:top}
tr.promoted td{background:#e8f7e8} tr.kind-dropout td{background:#fff3e0} tr.kind-error td{background:#fde8e8}
.add{color:#116611} .del{color:#aa1111} .hunk{color:#555}
.problems{background:#fff8e1;border:1px solid #f0c36d;padding:.5em}
img.plot{max-width:100%;border:1px solid #ddd;margin:.5em 0}
table.grid{border-collapse:collapse;font-size:13px} table.grid td,table.grid th{border:1px solid #ccc;padding:3px 8px}
div.call{border-left:3px solid #8ab4f8;padding:.2em .8em;margin:.6em 0} div.call p{margin:.25em 0}
details.call-section{margin-left:1em} p.says{font-style:italic} .missing{color:#aa1111}
"""
JS = """
function filterKind(k){document.querySelectorAll('#timeline tbody tr').forEach(function(r){
 r.style.display=(!k||r.dataset.kind===k)?'':'none';});}
"""


def render(view: SessionView) -> str:
    """The page as a string."""
    all_steps = steps(view)
    e = html.escape
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>aka replay {e(view.id)}</title>",
             f"<style>{CSS}</style><script>{JS}</script></head><body>",
             f"<h1>aka session {e(view.id)}: {e(view.op)}</h1>",
             "<pre>" + e("\n".join(header(view))) + "</pre>"]
    if view.problems:
        parts.append("<div class='problems' id='problems'><b>Missing or unreadable</b> (shown as far as it goes)<ul>"
                     + "".join(f"<li>{e(p)}</li>" for p in view.problems) + "</ul></div>")
    parts += ["<h2>Summary</h2><pre>" + e("\n".join(summary(view, all_steps))) + "</pre>", _plots(view),
              _archive(view), _timeline(all_steps), "<h2>Candidates</h2>"]
    parts += [_version(view, name, all_steps) for name in view.versions]
    parts.append(_other_calls(view, all_steps))
    parts.append("</body></html>")
    return "\n".join(parts)


def write(view: SessionView, out: Path) -> Path:
    out = Path(out)
    if out.resolve().is_relative_to(view.root.resolve()):
        from aka.errors import InputError

        raise InputError(f"{out}: replay never writes into the session folder; choose a path outside {view.root}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(view), encoding="utf-8")
    return out


def _plots(view: SessionView) -> str:
    best = view.versions.get(view.best).eval if view.best and view.best in view.versions else None
    with tempfile.TemporaryDirectory(prefix="aka-replay-") as tmp:
        written, notes = write_plots(Path(tmp), view.events, lambda v: view.versions[v].eval if v in view.versions
                                     else None, best, _weights(view), f"{view.op} ({view.id})")
        imgs = [f"<img class='plot' id='plot-{p.stem}' alt='{p.stem}' src='data:image/png;base64,"
                f"{base64.b64encode(p.read_bytes()).decode()}'>" for p in written]
    return "<h2>Plots</h2>" + "".join(imgs) + "".join(f"<p>{html.escape(n)}</p>" for n in notes)


def _weights(view: SessionView) -> dict[str, float]:
    """Shape weights from the operator's op.yaml when it is still where the session found it."""
    try:
        from aka.spec.load import load_op

        spec = load_op(view.spec_path()) if view.spec_path() else None
    except Exception:  # noqa: BLE001 - a moved or changed operator: equal weights
        return {}
    return {s.id: s.weight for s in spec.shapes + spec.cpu_shapes} if spec else {}


def _archive(view: SessionView) -> str:
    """A map-elites session's archive: one memory x compute table per island, then the prompt versions."""
    a = archive.rebuild(view)
    if a is None:
        return ""
    e = html.escape
    out = ["<h2 id='archive'>Archive (map-elites)</h2><pre>" + e("\n".join(archive.render(a)[1:4])) + "</pre>"]
    head = "".join(f"<th>{e(n)} ({i})</th>" for i, n in enumerate(archive.LEVELS["memory"]))
    for i, cells in enumerate(a.islands):
        rows = "".join("<tr><th>" + e(r[0]) + "</th>" + "".join(f"<td>{_links(x)}</td>" for x in r[1:]) + "</tr>"
                       for r in archive.grid_rows(cells))
        out.append(f"<h3>island {i} ({len(cells)} cells)</h3><table class='grid'><thead><tr><th>compute \\ memory"
                   f"</th>{head}</tr></thead><tbody>{rows}</tbody></table>")
    for p in a.prompts:
        body = "".join(f"<h4>{e(k)}</h4><pre>{e(t)}</pre>" for k, t in p["sections"].items())
        diff = f"<h4>the model's search/replace blocks</h4><pre>{e(p['diff'])}</pre>" if p.get("diff") else ""
        out.append(f"<details class='prompt'><summary>prompt {e(p['id'])} ({e(p.get('origin', ''))}"
                   + (f", rewrote {e(p['rewritten'])} of {e(str(p['parent']))}" if p.get("rewritten") else "")
                   + f")</summary>{body}{diff}</details>")
    return "\n".join(out)


def _links(text: str) -> str:
    """Grid text with each vNNN linked to its candidate's section."""
    return re.sub(r"\b(v\d{3,})\b", r"<a href='#\1'>\1</a>", html.escape(text))


def _timeline(all_steps: list[Step]) -> str:
    e = html.escape
    kinds = sorted({s.kind for s in all_steps})
    opts = "".join(f"<option value='{k}'>{k}</option>" for k in kinds)
    rows = []
    for s in all_steps:
        cls = f"kind-{s.kind}" + (" promoted" if s.promoted else "")
        link = f"<a href='#{s.version}'>{e(s.version)}</a>" if s.version else ""
        rows.append(f"<tr class='{cls}' data-kind='{e(s.kind)}'><td>{s.seq}</td><td>{e(s.time[11:19])}</td>"
                    f"<td>{e(s.kind)}</td><td>{link}</td><td>{e(s.title)}</td></tr>")
    return ("<h2>Timeline</h2><label>show <select id='timeline-filter' onchange='filterKind(this.value)'><option value=''>all</option>"
            f"{opts}</select></label><table class='timeline' id='timeline'><thead><tr><th>#</th><th>time</th>"
            "<th>kind</th><th>version</th><th>what</th></tr></thead><tbody>" + "".join(rows) + "</tbody></table>")


def _version(view: SessionView, name: str, all_steps: list[Step]) -> str:
    e = html.escape
    v = view.versions[name]
    cand = v.candidate
    head = f"<h3>{e(name)}" + (f": {e(cand.name)} ({e(cand.origin)})" if cand else "") + "</h3>"
    body = []
    if cand and cand.params:
        body.append("<p>parameters: " + e(", ".join(f"{k}={val}" for k, val in cand.params.items())) + "</p>")
    if v.eval is not None:
        body.append(f"<p>verdict: <b>{e(v.eval.status.value)}</b> ({e(v.eval.mode)}, {e(v.eval.dtype)})</p>")
        body += [f"<p>rule <code>{e(r.rule)}</code>" + (f" at line {r.line}" if r.line else "") + f": {e(r.message)}</p>"
                 for r in v.eval.rejections]
        body.append("<pre>" + e("\n".join(shape_table(v.eval, ""))) + "</pre>")
    else:
        body.append("<p><i>no evaluation record</i></p>")
    if v.decision is not None:
        body.append(f"<p>decision: {'promoted' if v.decision.promote else 'not promoted'} — {e(v.decision.reason)}</p>")
    body += _version_calls(view, name, all_steps)
    against = incumbent_before(all_steps, name)
    d = diff(view, name, against)
    if d:
        body.append(f"<details open><summary>diff against the incumbent {e(against)}</summary>{_diff_html(d)}</details>")
    if v.source is not None:
        body.append(f"<details><summary>source</summary><pre>{e(v.source)}</pre></details>")
    else:
        body.append("<p><i>source missing</i></p>")
    return f"<section class='version' id='{e(name)}'>{head}{''.join(body)}</section>"


def _call(view: SessionView, n: int, reused: bool = False) -> str:
    """One model call: its figures, what the prompt held, the model's prose, then the prompt section by
    section and the reply, each collapsible."""
    e = html.escape
    call = llm_calls.by_number(view.llm).get(n)
    if call is None:
        return (f"<div class='call' id='call-{n}'><p class='missing'>model call {n}: llm/{n:04d}.json is missing "
                "or unreadable</p></div>")
    parts = [f"<div class='call' id='call-{n}'><p><b>{e(llm_calls.head(call, reused))}</b></p>",
             f"<p>{e(llm_calls.inputs(call))}</p>" if llm_calls.inputs(call) else "",
             f"<p class='says'>{e(llm_calls.excerpt(call))}</p>"]
    parts += [f"<p>retry: {e(r)}</p>" for r in call.retries]
    sections = "".join(f"<details class='call-section'><summary>{e(s.role)}: {e(s.title)} ({s.chars} chars)</summary>"
                       f"<pre>{e(s.text)}</pre></details>" for s in call.sections)
    parts.append(f"<details class='call-prompt'><summary>{e(llm_calls.layout(call))}</summary>{sections}</details>")
    parts.append(f"<details class='call-reply'><summary>reply ({len(call.reply)} chars)</summary>"
                 f"<pre>{e(call.reply)}</pre></details></div>")
    return "".join(parts)


def _version_calls(view: SessionView, name: str, all_steps: list[Step]) -> list[str]:
    """The calls behind the proposals of candidate NAME, each once (a resumed run may propose it again)."""
    found: dict[int, bool] = {}
    for s in all_steps:
        if s.kind == "propose" and s.version == name:
            for n in s.calls:
                found[n] = found.get(n, False) or bool(s.data.get("reused"))
    return [_call(view, n, reused) for n, reused in found.items()]


def _other_calls(view: SessionView, all_steps: list[Step]) -> str:
    """Calls behind no candidate: meta-prompt rewrites, proposals never evaluated, calls no event names."""
    tied = {n for s in all_steps if s.kind == "propose" and s.version for n in s.calls}
    rest = [c for c in view.llm if c.n not in tied]
    if not rest:
        return ""
    out = ["<h2 id='other-calls'>Other model calls</h2>"]
    for c in rest:
        step = next((s for s in all_steps if c.n in s.calls), None)
        out.append(f"<p>behind event #{step.seq}: {html.escape(step.title)}</p>" if step
                   else "<p>behind no journal event</p>")
        out.append(_call(view, c.n, bool(step and step.data.get("reused"))))
    return "".join(out)


def _diff_html(text: str) -> str:
    out = []
    for line in text.splitlines():
        cls = "add" if line.startswith("+") else "del" if line.startswith("-") else "hunk" if line.startswith("@@") else ""
        out.append(f"<span class='{cls}'>{html.escape(line)}</span>")
    return "<pre class='diff'>" + "\n".join(out) + "</pre>"
