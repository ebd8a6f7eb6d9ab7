"""`aka report RUN`: report.md and report.html of a batch run, with plots (per-operator SOL against
the baselines, the speedup distribution, operator weight against SOL), read from the run's files."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from aka.batch.folder import RunFolder
from aka.sessions.folder import write_text
from aka.spec.result import speedup_text


def _f(x: float | None, fmt: str = "{:.3f}") -> str:
    return "n/a" if x is None else fmt.format(x)


def summary_lines(board: dict[str, Any]) -> list[str]:
    """The suite's scores, one per line."""
    subset = f" (of the suite's {board['subset_of']}, chosen with --ops)" if board.get("subset_of") else ""
    out = [f"suite {board['suite']} ({board['suite_kind']}), mode {board['mode']}: {board['operators']} operators"
           f"{subset}, {board['done']} done, {board['errored']} errored, {board['pending']} pending",
           f"real kernels: {len(board['real_kernels'])}/{board['operators']} "
           f"({_f(board['real_kernel_share'], '{:.0%}')})",
           f"weights: {board['weights']['source']} (normalized to 1)",
           f"importance-weighted SOL: {_f(board.get('weighted_sol'))}"
           f" (launch-adjusted {_f(board.get('weighted_sol_launch_adjusted'))})"
           + (f"; basis {', '.join(board['sol_basis'])}" if board.get("sol_basis") else "")]
    for b, v in (board.get("weighted_baseline_sol") or {}).items():
        out.append(f"  {b} reaches weighted SOL {_f(v)}")
    for b, g in board.get("geomean_speedup", {}).items():
        out.append(f"geomean speedup over {b}: {g['value']:.3f}x ({g['operators']} operators with a real kernel)")
    for b, ps in board.get("fast_p", {}).items():
        out.append(f"fast_p vs {b}: " + ", ".join(f"fast_{p} {v:.0%}" for p, v in ps.items()))
    return out + [f"note: {n}" for n in board.get("notes", [])]


def scoreboard_text(board: dict[str, Any]) -> str:
    lines = summary_lines(board) + [""]
    for r in board["rows"]:
        speed = ", ".join(f"{k} {speedup_text(v, 'x')}" for k, v in r["speedup"].items())
        lines.append(f"  {r['op']}: {r['state']}, weight {r['weight']:.3f}, "
                     f"{'real kernel' if r['real_kernel'] else 'no real kernel'}"
                     + (f", SOL {r['sol']:.3f}" if r["sol"] is not None else "") + (f", {speed}" if speed else "")
                     + (f" — {r['error'][:160]}" if r.get("error") else ""))
    return "\n".join(lines)


def operator_table(board: dict[str, Any]) -> list[str]:
    names = sorted({k for r in board["rows"] for k in r["speedup"]})
    head = ["operator", "state", "weight", "real kernel", "kernel", "SOL", "SOL launch-adj."]
    head += [f"SOL {b}" for b in sorted({k for r in board["rows"] for k in r["baseline_sol"]})]
    sol_names = head[7:]
    head += [f"× {n}" for n in names] + ["device"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in board["rows"]:
        dev = r.get("device") or {}
        cells = [r["op"], r["state"] + (f": {r['error'][:80]}" if r.get("error") else ""), f"{r['weight']:.3f}",
                 "yes" if r["real_kernel"] else "no", r.get("best_name") or "", _f(r["sol"]),
                 _f(r["sol_launch_adjusted"])]
        cells += [_f(r["baseline_sol"].get(b.split(" ", 1)[1])) for b in sol_names]
        cells += [speedup_text(r["speedup"].get(n)) for n in names]
        cells.append(f"{dev.get('kind', '')}{'' if dev.get('index') is None else dev['index']} {dev.get('uuid') or ''}".strip())
        out.append("| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in cells) + " |")
    return out


def write_report(folder: RunFolder) -> dict[str, Any]:
    """Write report.md, report.html and plots/*.png; returns their paths and any notes."""
    from aka.batch.plots import write_plots

    board = folder.scoreboard()
    if board is None:
        from aka.errors import InputError

        raise InputError(f"{folder.root}: no scoreboard.json yet (the run has not recorded an operator)")
    plots, notes = write_plots(folder.root / "plots", board)
    md = [f"# aka batch {board.get('run', folder.root.name)}: {board['suite']}", ""]
    md += [f"- {line}" for line in summary_lines(board)] + ["", "## Operators", ""] + operator_table(board)
    md += ["", "## Plots", ""] + [f"![{p.stem}](plots/{p.name})" for p in plots] + [f"- {n}" for n in notes]
    write_text(folder.root / "report.md", "\n".join(md) + "\n")
    write_text(folder.root / "report.html", _html(board, plots, notes))
    return {"markdown": folder.root / "report.md", "html": folder.root / "report.html",
            "plots": [str(p) for p in plots], "notes": notes}


def _html(board: dict[str, Any], plots: list[Path], notes: list[str]) -> str:
    rows = operator_table(board)
    head = [c.strip() for c in rows[0].strip("|").split("|")]
    body = [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]
    table = ("<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
             + "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in body) + "</table>")
    imgs = "".join(f'<figure><img alt="{p.stem}" src="data:image/png;base64,'
                   f'{base64.b64encode(p.read_bytes()).decode()}"><figcaption>{p.stem}</figcaption></figure>'
                   for p in plots)
    summary = "".join(f"<li>{html.escape(s)}</li>" for s in summary_lines(board))
    extra = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    style = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
             "td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}img{max-width:900px}")
    title = html.escape(f"aka batch {board.get('run', '')}: {board['suite']}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{title}</title><style>{style}</style>"
            f"</head><body><h1>{title}</h1><ul>{summary}</ul><h2>Operators</h2>{table}<h2>Plots</h2>{imgs}"
            f"<ul>{extra}</ul></body></html>\n")
