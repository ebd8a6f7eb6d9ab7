"""`aka compare RUN_A RUN_B`: two runs' scoreboards side by side."""

from __future__ import annotations

from typing import Any

from aka.batch.folder import RunFolder
from aka.errors import InputError

SUITE_KEYS = ("weighted_sol", "weighted_sol_launch_adjusted", "real_kernel_share", "done", "errored")


def _board(folder: RunFolder) -> dict[str, Any]:
    board = folder.scoreboard()
    if board is None:
        raise InputError(f"{folder.root}: no scoreboard.json yet")
    return board


def compare(a: RunFolder, b: RunFolder) -> dict[str, Any]:
    """Suite scores and per-operator SOL and speedups of A and B, with B - A where both have a number."""
    ba, bb = _board(a), _board(b)
    suite = {k: {"a": ba.get(k), "b": bb.get(k), "delta": _delta(ba.get(k), bb.get(k))} for k in SUITE_KEYS}
    for base in sorted(set(ba.get("geomean_speedup", {})) | set(bb.get("geomean_speedup", {}))):
        x, y = (brd.get("geomean_speedup", {}).get(base, {}).get("value") for brd in (ba, bb))
        suite[f"geomean_speedup.{base}"] = {"a": x, "b": y, "delta": _delta(x, y)}
        for p in ("1", "1.5", "2"):
            x, y = (brd.get("fast_p", {}).get(base, {}).get(p) for brd in (ba, bb))
            suite[f"fast_{p}.{base}"] = {"a": x, "b": y, "delta": _delta(x, y)}
    rows_a = {r["op"]: r for r in ba["rows"]}
    rows_b = {r["op"]: r for r in bb["rows"]}
    ops = []
    for name in list(rows_a) + [n for n in rows_b if n not in rows_a]:
        ra, rb = rows_a.get(name, {}), rows_b.get(name, {})
        ops.append({"op": name, "state": {"a": ra.get("state"), "b": rb.get("state")},
                    "real_kernel": {"a": ra.get("real_kernel"), "b": rb.get("real_kernel")},
                    "sol": {"a": ra.get("sol"), "b": rb.get("sol"), "delta": _delta(ra.get("sol"), rb.get("sol"))},
                    "speedup": {k: {"a": ra.get("speedup", {}).get(k), "b": rb.get("speedup", {}).get(k)}
                                for k in sorted(set(ra.get("speedup", {})) | set(rb.get("speedup", {})))}})
    notes = []
    if ba.get("suite") != bb.get("suite"):
        notes.append(f"the runs are of different suites ({ba.get('suite')} and {bb.get('suite')})")
    if ba.get("gpu") != bb.get("gpu"):
        notes.append("one run is on a GPU and the other on the CPU interpreter: their times are not comparable")
    return {"a": str(a.root), "b": str(b.root), "suite": suite, "operators": ops, "notes": notes}


def _delta(x: Any, y: Any) -> float | None:
    if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool):
        return y - x
    return None


def _f(x: Any) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, bool):
        return "yes" if x else "no"
    return f"{x:.3f}" if isinstance(x, float) else str(x)


def compare_text(result: dict[str, Any]) -> str:
    lines = [f"A: {result['a']}", f"B: {result['b']}", "", "| score | A | B | B - A |", "|---|---|---|---|"]
    for k, v in result["suite"].items():
        lines.append(f"| {k} | {_f(v['a'])} | {_f(v['b'])} | {_f(v['delta'])} |")
    lines += ["", "| operator | state A | state B | SOL A | SOL B | speedups A | speedups B |", "|---|---|---|---|---|---|---|"]
    for r in result["operators"]:
        sa = ", ".join(f"{k} {_f(v['a'])}" for k, v in r["speedup"].items())
        sb = ", ".join(f"{k} {_f(v['b'])}" for k, v in r["speedup"].items())
        lines.append(f"| {r['op']} | {_f(r['state']['a'])} | {_f(r['state']['b'])} | {_f(r['sol']['a'])} | "
                     f"{_f(r['sol']['b'])} | {sa} | {sb} |")
    return "\n".join(lines + [f"note: {n}" for n in result["notes"]])
