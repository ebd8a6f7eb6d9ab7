"""The scoreboard of a batch run, from the operators' records and the EvalResults they ended with.

Per shape: SOL = T_roof / T (datasheet peaks; 'bytes-only' when the operator gives no roofline),
launch-adjusted SOL = (T_roof + empty-launch time) / T, the SOL a baseline reaches
(T_roof / T_baseline), and speedup = T_baseline / T per baseline (eager, torch.compile, and
'production': the operator's own production module timed by the judge beside the candidate
(op.yaml `production:`), else a production kernel's time the suite gives for this device (Atrex
metadata); `production_source` says which, 'timed' or 'metadata').
Per operator: the shape-weighted arithmetic mean of SOLs and the shape-weighted geometric mean of
speedups over its visible shapes.
Suite: the importance-weighted SOL (weights normalized to 1; an operator without a real kernel
scores 0), the geometric mean speedup per baseline over operators with a real kernel, fast_p for
p in {1, 1.5, 2} per baseline (KernelBench's definition: the share of all operators whose kernel
is correct AND faster than the baseline by more than p), and the share of operators that ended
with a real kernel (accepted by the harness: not rejected, not a fallback).
"""

from __future__ import annotations

import math
from typing import Any

from aka.batch.suite import Suite

FORMAT = "aka.batch.scoreboard/1"
FAST_P = (1.0, 1.5, 2.0)
BASELINES = ("eager", "torch.compile", "production")


def shape_rows(doc: dict[str, Any], weights: dict[str, float], production: dict[str, float]) -> list[dict[str, Any]]:
    """Per visible shape: time, SOL, launch-adjusted SOL, baseline SOLs and speedups."""
    rows = []
    for s in doc.get("shapes", []):
        if s.get("held_out"):
            continue
        t = (s.get("time") or {}).get("median_us")
        roof = s.get("roofline") or {}
        t_roof = roof.get("t_roof_us")
        base_us = {k: v["median_us"] for k, v in (s.get("baselines") or {}).items() if v and v.get("median_us")}
        speedup = dict(s.get("speedup") or {})
        source = "timed" if "production" in base_us else None
        if source is None and production.get(s["id"]) and t:
            base_us["production"] = production[s["id"]]
            speedup["production"] = production[s["id"]] / t
            source = "metadata"
        rows.append({
            "shape": s["id"], "weight": float(weights.get(s["id"], 1.0)), "time_us": t,
            "method": (s.get("time") or {}).get("method"),
            "sol": roof.get("sol"), "sol_launch_adjusted": roof.get("sol_launch_adjusted"),
            "basis": roof.get("basis") if roof else None, "flag": roof.get("flag", "") if roof else "",
            "baseline_sol": {k: t_roof / us for k, us in base_us.items() if t_roof and us > 0},
            "speedup": speedup, "baselines_us": base_us, "production_source": source,
        })
    return rows


def operator_row(name: str, rec: dict[str, Any] | None, doc: dict[str, Any] | None, suite: Suite) -> dict[str, Any]:
    """One operator's scores (weighted means over its shapes); pending when it has no record yet."""
    op = suite.operator(name)
    row: dict[str, Any] = {"op": name, "form": op.form, "phase": op.phase, "raw_weight": op.weight,
                           "state": rec["state"] if rec else "pending", "real_kernel": bool(rec and rec.get("real_kernel")),
                           "status": (rec or {}).get("status"), "error": (rec or {}).get("error"),
                           "device": (rec or {}).get("device", {}), "best_name": (rec or {}).get("best_name"),
                           "sol": None, "sol_launch_adjusted": None, "basis": None, "speedup": {}, "baseline_sol": {},
                           "production_source": None, "shapes": []}
    if not (rec and doc and row["real_kernel"]):
        return row
    device = str((rec.get("device") or {}).get("name") or (doc.get("device") or {}).get("name") or "")
    production = next((times for sku, times in op.production_us.items() if sku.lower() in device.lower()), {})
    shapes = shape_rows(doc, rec.get("shape_weights") or {}, production)
    row["shapes"] = shapes
    row["sol"] = _wmean([(r["weight"], r["sol"]) for r in shapes])
    row["sol_launch_adjusted"] = _wmean([(r["weight"], r["sol_launch_adjusted"]) for r in shapes])
    row["basis"] = next((r["basis"] for r in shapes if r["basis"]), None)
    row["production_source"] = next((r["production_source"] for r in shapes if r["production_source"]), None)
    names = sorted({k for r in shapes for k in r["speedup"]} | {k for r in shapes for k in r["baseline_sol"]})
    for b in names:
        g = _wgeomean([(r["weight"], r["speedup"].get(b)) for r in shapes])
        if g is not None:
            row["speedup"][b] = g
        m = _wmean([(r["weight"], r["baseline_sol"].get(b)) for r in shapes])
        if m is not None:
            row["baseline_sol"][b] = m
    return row


def normalized_weights(suite: Suite) -> tuple[dict[str, float], dict[str, Any]]:
    """Operator -> weight summing to 1, and what was done to get there (said in the scoreboard)."""
    ops = suite.operators
    given = {o.name: o.weight for o in ops if o.weight is not None}
    info: dict[str, Any] = {"source": suite.weight_source, "given_sum": sum(given.values()) if given else None,
                            "normalized": True, "notes": []}
    if not given or sum(given.values()) <= 0:
        info["source"] = "equal"
        info["notes"].append(f"no operator weights given: each of the {len(ops)} operators weighs 1/{len(ops)}")
        return {o.name: 1.0 / len(ops) for o in ops} if ops else {}, info
    fill = sum(given.values()) / len(given)
    missing = [o.name for o in ops if o.weight is None]
    if missing:
        info["notes"].append(f"no weight given for {', '.join(missing)}: each counted at the mean given weight {fill:.4g}")
    raw = {o.name: given.get(o.name, fill) for o in ops}
    total = sum(raw.values())
    if abs(total - 1.0) > 1e-6:
        info["notes"].append(f"the weights from {suite.weight_source} sum to {total:.6g}, not 1: normalized to 1")
    return {k: v / total for k, v in raw.items()}, info


def scoreboard(suite: Suite, mode: str, records: dict[str, dict[str, Any]],
               docs: dict[str, dict[str, Any] | None]) -> dict[str, Any]:
    """The suite's scores; operators without a record yet count as pending (and as no kernel)."""
    weights, winfo = normalized_weights(suite)
    rows = [operator_row(o.name, records.get(o.name), docs.get(o.name), suite) for o in suite.operators]
    for r in rows:
        r["weight"] = weights.get(r["op"], 0.0)
    n = len(rows)
    gpu = any((r["device"] or {}).get("kind") == "cuda" for r in rows)
    notes = list(winfo["notes"])
    board: dict[str, Any] = {
        "format": FORMAT, "suite": suite.name, "suite_kind": suite.kind, "mode": mode, "operators": n,
        **({"subset_of": suite.subset_of} if suite.subset_of else {}),
        "done": sum(r["state"] == "done" for r in rows), "errored": sum(r["state"] == "errored" for r in rows),
        "pending": sum(r["state"] == "pending" for r in rows), "gpu": gpu, "weights": winfo,
        "real_kernel_share": sum(r["real_kernel"] for r in rows) / n if n else None,
        "real_kernels": [r["op"] for r in rows if r["real_kernel"]],
        "no_real_kernel": [r["op"] for r in rows if not r["real_kernel"]],
    }
    if gpu:
        board["weighted_sol"] = _weighted(rows, "sol")
        board["weighted_sol_launch_adjusted"] = _weighted(rows, "sol_launch_adjusted")
        if board["weighted_sol_launch_adjusted"] is None:
            notes.append("no launch-adjusted SOL: the device's launch floor was not measured (aka doctor --calibrate)")
        board["weighted_baseline_sol"] = {b: v for b in BASELINES if (v := _covered(rows, b)) is not None}
        board["by_phase"] = _by_phase(rows)
        bases = sorted({r["basis"] for r in rows if r["basis"]})
        board["sol_basis"] = bases
        if "bytes-only" in bases:
            notes.append("some SOLs are bytes-only (no roofline given: inputs, parameters and outputs moved once "
                         "at peak bandwidth; compute not counted)")
    else:
        board.update(weighted_sol=None, weighted_sol_launch_adjusted=None, weighted_baseline_sol={}, by_phase={},
                     sol_basis=[])
        notes.append("no GPU: times are CPU-interpreter wall times, so no SOL, speedup or fast_p is reported")
    board["geomean_speedup"], board["fast_p"] = {}, {}
    for b in BASELINES:
        xs = [r["speedup"][b] for r in rows if r["real_kernel"] and r["speedup"].get(b)]
        if not xs:
            continue
        board["geomean_speedup"][b] = {"value": math.exp(sum(map(math.log, xs)) / len(xs)), "operators": len(xs)}
        if b != "production":
            board["fast_p"][b] = {f"{p:g}": sum(1 for r in rows if r["real_kernel"] and r["speedup"].get(b, 0) > p) / n
                                  for p in FAST_P}
    board["notes"] = notes
    board["rows"] = rows
    return board


def _weighted(rows: list[dict[str, Any]], key: str) -> float | None:
    """Σ weight × value, an operator without a real kernel counting 0; None when no kernel has the value."""
    if not any(r["real_kernel"] and r[key] is not None for r in rows):
        return 0.0 if not any(r["real_kernel"] for r in rows) else None
    return sum(r["weight"] * (r[key] or 0.0) for r in rows)


def _covered(rows: list[dict[str, Any]], baseline: str) -> float | None:
    """Weighted SOL of a baseline over the operators where it was timed (re-normalized)."""
    pairs = [(r["weight"], r["baseline_sol"][baseline]) for r in rows if baseline in r["baseline_sol"]]
    return _wmean(pairs)


def _by_phase(rows: list[dict[str, Any]]) -> dict[str, float]:
    out = {}
    for phase in sorted({r["phase"] for r in rows}):
        sub = [(r["weight"], r["sol"] or 0.0) for r in rows if r["phase"] == phase]
        m = _wmean(sub)
        if m is not None:
            out[phase] = m
    return out


def _wmean(pairs: list[tuple[float, float | None]]) -> float | None:
    pairs = [(w, x) for w, x in pairs if x is not None and w > 0]
    total = sum(w for w, _ in pairs)
    return sum(w * x for w, x in pairs) / total if total > 0 else None


def _wgeomean(pairs: list[tuple[float, float | None]]) -> float | None:
    pairs = [(w, x) for w, x in pairs if x is not None and x > 0 and w > 0]
    total = sum(w for w, _ in pairs)
    return math.exp(sum(w * math.log(x) for w, x in pairs) / total) if total > 0 else None
