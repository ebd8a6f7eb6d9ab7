"""The suite table for docs/benchmarks.md: every reference kernel of a suite, judged and timed on
the GPU by the harness, with SOL and speedups over eager and torch.compile per shape, and over the
operator's production baseline where it names one (op.yaml `production:`).

  PYTHONPATH=. python3 tools/suite_bench.py suites/llm-inference --out OUT/suite.json \
      [--ops rmsnorm,softmax] [--stop-after-s 480] [--label COMMIT] [--markdown OUT/suite.md]
  PYTHONPATH=. python3 tools/suite_bench.py --render OUT/suite.json   # the tables again, no GPU needed
  PYTHONPATH=. python3 tools/suite_bench.py SUITE --out OUT/suite.json --match-baselines   # older results
  PYTHONPATH=. python3 tools/suite_bench.py SUITE --out OUT/suite.json --kernels pad_2d/flat_output_1d
      # only new or changed kernels, joined to the operators' entries and baselines already there

Every kernel is set against baselines timed its way (CUDA graph or events) at each shape: the first
kernel's evaluation times the baselines, and a later kernel timed another way at a shape gets them
timed that way too, once per (shape, method). Results from before that (rows marked †) are matched
afterwards with --match-baselines, which times only the missing pairs. A baseline that cannot run in
a CUDA graph (it synchronizes: a boolean mask, torch.nonzero) falls back to events; the kernel is then
timed again with events at that shape and set against it that way (marked ‡).

Results accumulate in --out after every kernel (the file replaced whole, never half-written), so a
run cut short by a time limit resumes where it stopped: an operator stopped part-way is kept as
partial, its finished kernels and baselines with it, and the next run measures only its other
kernels; --stop-after-s starts no new operator after that many seconds. --jobs N measures
N operators at once, each through its own worker pool, every evaluation holding one GPU lock: the
judge times under it exclusively, so timings take turns while compiles and correctness checks
overlap (whole operators only).
Needs a CUDA GPU to measure: interpreter times are not GPU performance.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import threading
import time
from contextlib import ExitStack, nullcontext
from dataclasses import asdict, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from aka.errors import SpecError
from aka.evaluate.timing import GRAPH_BELOW_US, TIMING_RULE  # no torch: --render needs no GPU stack
from aka.spec.result import speedup_text

FORMAT = 2
MIXED = "†"
RETIMED = "‡"
JOINED = "◊"
"""A kernel timed by a later run (`--kernels`) than the eager and torch.compile times it is set against."""


def kernels_by_op(suite: Path, root: Path) -> dict[str, list[Path]]:
    """Each operator of the suite with the reference kernels whose front matter names it."""
    from aka.spec.kernel import read_kernel_meta

    out: dict[str, list[Path]] = {}
    for op_dir in sorted(p.parent for p in suite.glob("*/op.yaml")):
        files = sorted((root / "reference_kernels" / op_dir.name).glob("*.py"))
        out[op_dir.name] = [f for f in files if read_kernel_meta(f).op == op_dir.name]
    return out


def winners_of(data: dict) -> dict[str, set[str]]:
    """Per operator of a results file, its kernels that are the fastest at one of its shapes or more."""
    return {op: {r["kernel"] for r in fastest_rows(entry).values()} for op, entry in data["ops"].items()}


def select_winners(kernels: dict[str, list[Path]], earlier: list[dict]) -> tuple[dict[str, list[Path]], dict[str, list[str]]]:
    """KERNELS cut to what the EARLIER results files (another card's tables) say can win: at an
    operator they hold with an accepted kernel, the kernels fastest at one of its shapes there, and
    every kernel they do not hold (new since); an operator they do not hold keeps all its kernels.
    Also the kernels left out, per operator."""
    held: dict[str, set[str]] = {}
    won: dict[str, set[str]] = {}
    for data in earlier:
        for op, names in winners_of(data).items():
            won.setdefault(op, set()).update(names)
            held.setdefault(op, set()).update(data["ops"][op]["kernels"])
    kept, left_out = {}, {}
    for op, files in kernels.items():
        if not won.get(op):
            kept[op] = files
            continue
        kept[op] = [f for f in files if f.stem in won[op] or f.stem not in held[op]]
        if len(kept[op]) < len(files):
            left_out[op] = sorted(f.stem for f in files if f not in kept[op])
    return kept, left_out


def _stamp() -> str:
    """When an operator or kernel was measured (UTC, to the minute)."""
    return datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _ratio(base: float | None, t: float) -> float | None:
    return base / t if base and t > 0 else None


def baseline_method(us: float | None, recorded: str | None) -> str | None:
    """How a baseline was timed. Results from before baselines followed the candidate's method
    did not record it; then the harness's own rule decides: events from 20 µs up, else a graph."""
    if recorded or us is None:
        return recorded
    return "events" if us >= GRAPH_BELOW_US else "graph"


BASELINES = ("eager", "compile", "production")
"""Row field stems of the baselines; the harness names torch.compile's timing 'torch.compile'."""


def _harness_name(b: str) -> str:
    return "torch.compile" if b == "compile" else b


def kernel_us(row: dict, method: str | None) -> float:
    """The kernel's time at a row's shape when timed METHOD's way: its own time, or the time it got
    when timed again to match a baseline that could only be timed another way (`us_as`)."""
    if method in (None, row["method"]):
        return row["us"]
    return (row.get("us_as") or {}).get(method, row["us"])


def match(row: dict, times: dict[str, float], methods: dict[str, str] | None = None) -> dict:
    """Set a row's baseline times, how each was timed, and the kernel's speedup over each (against
    the kernel timed the same way as that baseline where it was timed again for it)."""
    for b in BASELINES:
        us = times.get(_harness_name(b))
        row[f"{b}_us"] = us
        row[f"{b}_method"] = baseline_method(us, (methods or {}).get(_harness_name(b)))
        row[f"x_{b}"] = _ratio(us, kernel_us(row, row[f"{b}_method"]))
    return row


def rows_of(result: dict, kernel: str, baselines: dict[str, dict[str, float]],
            methods: dict[str, dict[str, str]] | None = None) -> list[dict]:
    """One row per timed visible shape of an evaluation result (held-out shapes are checked, not tabled)."""
    rows = []
    for s in result["shapes"]:
        if s["held_out"] or not s.get("time"):
            continue
        ro = s.get("roofline") or {}
        row = {"kernel": kernel, "shape": s["id"], "us": s["time"]["median_us"], "cv": s["time"]["cv"],
               "method": s["time"]["method"]}
        match(row, baselines.get(s["id"], {}), (methods or {}).get(s["id"]))
        rows.append(row | {"sol": ro.get("sol"), "sol_cal": ro.get("sol_calibrated"),
                           "sol_launch": ro.get("sol_launch_adjusted"), "flag": ro.get("flag", "")})
    return rows


def kernel_entry(result: dict, kernel: str, baselines: dict, methods: dict | None = None) -> dict:
    return {"status": result["status"],
            "rejections": [f"{r['rule']}: {r['message'][:300]}" + (f" [shape {r['shape']}]" if r.get("shape") else "")
                           for r in result["rejections"]],
            "held_out_checked": sum(1 for s in result["shapes"] if s["held_out"] and s.get("correct")),
            "wall_s": round(result.get("wall_s", 0.0), 1),
            "rows": rows_of(result, kernel, baselines, methods)}


class BaselineTable:
    """An operator's baseline timings per (shape, timing method): each kernel is set against
    baselines timed the way it was timed at that shape, and a (shape, method) pair is timed once.
    The key is the method asked for; what each baseline got (a capture that failed falls back to
    events) is kept beside its time, and the table marks such a row."""

    def __init__(self, data: dict | None = None):
        self.data: dict[str, dict[str, dict]] = data or {}

    def record(self, shape: str, method: str, timings: dict[str, dict]) -> None:
        """TIMINGS: baseline name -> {'median_us', 'method', ...} (a harness Timing's dict)."""
        self.data.setdefault(shape, {})[method] = {
            "times": {b: t["median_us"] for b, t in timings.items()},
            "methods": {b: t.get("method") for b, t in timings.items()}}

    def has(self, shape: str, method: str) -> bool:
        return method in self.data.get(shape, {})

    def missing(self, rows: list[dict]) -> dict[str, str]:
        """Shape -> method of the GPU-timed rows no baseline was timed for yet."""
        return {r["shape"]: r["method"] for r in rows
                if r["method"] in ("graph", "events") and not self.has(r["shape"], r["method"])}

    def matched(self, rows: list[dict]) -> list[dict]:
        """The rows set against their own method's baselines (another method's when none was timed)."""
        for r in rows:
            by = self.data.get(r["shape"], {})
            got = by.get(r["method"]) or next(iter(by.values()), None)
            if got:
                match(r, got["times"], got["methods"])
        return rows


def time_missing(ev: Any, spec: Any, table: BaselineTable, rows: list[dict], timeout_s: float) -> str | None:
    """Time the baselines the rows need and the table lacks; a failure is returned, not raised
    (the rows then keep another method's baselines and their mark)."""
    from aka.errors import WorkerError
    from aka.evaluate.evaluator import EvalOptions

    need = table.missing(rows)
    if not need:
        return None
    try:
        got = ev.time_baselines(spec, need, EvalOptions(timeout_s=timeout_s))
    except WorkerError as exc:
        return f"timing baselines for {sorted(need)} failed: {str(exc)[:300]}"
    for sid, row in got.items():
        table.record(sid, need[sid], {b: asdict(t) for b, t in row.items()})
    return None


def unmatched(rows: list[dict]) -> dict[str, str]:
    """Shape -> method of the rows with a baseline that was timed another way than the kernel (its
    capture failed: it synchronizes) and that the kernel has not been timed that way for yet."""
    out = {}
    for r in rows:
        for b in BASELINES:
            how = r.get(f"{b}_method")
            if how and how != r["method"] and how not in (r.get("us_as") or {}):
                out[r["shape"]] = how
    return out


def retime(ev: Any, spec: Any, kernel: Path, table: BaselineTable, rows: list[dict], timeout_s: float) -> str | None:
    """Time the kernel again, the baselines' way, at the shapes where a baseline could not be timed
    its way, and set those rows against it; a failure is returned, not raised (the rows keep their
    mark)."""
    from aka.errors import CandidateError, WorkerError
    from aka.evaluate.evaluator import EvalOptions

    need = unmatched(rows)
    if not need:
        return None
    try:
        res = ev.evaluate(spec, kernel, EvalOptions(shapes=tuple(need), baselines=(), methods=need,
                                                    timeout_s=timeout_s), shipped=True).to_dict()
    except (WorkerError, CandidateError) as exc:
        return f"timing {kernel.stem} again at {sorted(need)} failed: {str(exc)[:300]}"
    if res["status"] != "accepted":
        why = "; ".join(f"{r['rule']}: {r['message'][:200]}" for r in res["rejections"][:1])
        return f"{kernel.stem} timed again at {sorted(need)}: {res['status']} ({why})"
    got = {s["id"]: s["time"] for s in res["shapes"] if not s["held_out"] and s.get("time")}
    for r in rows:
        t = got.get(r["shape"])
        if t and t["method"] == need.get(r["shape"]):
            r.setdefault("us_as", {})[t["method"]] = t["median_us"]
    table.matched(rows)
    return None


def production_of(entry: dict, spec: Any, op_dir: Path, res: dict) -> None:
    """What the operator's production baseline is, recorded with its entry."""
    if spec.production:
        entry["production"] = {"library": spec.production.library, "note": spec.production.note,
                               "file": os.path.relpath(spec.production.file, op_dir.resolve())}
        entry["production_notes"] = [n for n in res.get("notes", []) if "production" in n]


def own_rows(res: dict, kernel: str) -> dict:
    """A kernel entry set against the baselines its own evaluation timed (interleaved with it)."""
    timed = [s for s in res["shapes"] if s.get("baselines")]
    return kernel_entry(res, kernel, {s["id"]: {b: v["median_us"] for b, v in s["baselines"].items()} for s in timed},
                        {s["id"]: {b: v["method"] for b, v in s["baselines"].items()} for s in timed})


def bench_interleaved(ev: Any, spec: Any, kernel: Path, timeout_s: float, forced: dict[str, str]) -> tuple[dict, dict]:
    """One kernel timed with its own baselines at every shape, twice in mirrored order; where a
    baseline could only be timed another way (it cannot be captured in a graph), the kernel is
    evaluated again at those shapes that way, with its baselines, and those rows replace the first.
    (the evaluation result, the kernel entry)."""
    from aka.errors import CandidateError, WorkerError
    from aka.evaluate.evaluator import EvalOptions

    res = ev.evaluate(spec, kernel, EvalOptions(baselines=None, interleave=True, timeout_s=timeout_s,
                                                methods=forced), shipped=True).to_dict()
    kentry = own_rows(res, kernel.stem)
    need = {r["shape"]: r[f"{b}_method"] for r in kentry["rows"] for b in BASELINES
            if r.get(f"{b}_method") and r[f"{b}_method"] != r["method"]}
    if res["status"] == "accepted" and need:
        try:
            again = ev.evaluate(spec, kernel, EvalOptions(shapes=tuple(need), baselines=None, interleave=True,
                                                          methods=need, timeout_s=timeout_s), shipped=True).to_dict()
        except (WorkerError, CandidateError) as exc:
            kentry["baseline_failure"] = f"timing {kernel.stem} again at {sorted(need)} failed: {str(exc)[:300]}"
            return res, kentry
        redone = {r["shape"]: r for r in own_rows(again, kernel.stem)["rows"]}
        kentry["rows"] = [redone.get(r["shape"], r) for r in kentry["rows"]]
    return res, kentry


def bench_op(ev: Any, op_dir: Path, kernels: list[Path], timeout_s: float = 900, entry: dict | None = None,
             method: str | None = None, interleave: bool = False, on_kernel: Any = None) -> dict:
    """Evaluate every kernel of one operator, each against baselines timed its way at every shape:
    the first kernel's evaluation times them; later kernels time only (shape, method) pairs not
    timed yet. ENTRY: an operator measured before, whose baselines the kernels join (added or
    changed kernels replace theirs, the others stay). METHOD ('graph' or 'events'): every kernel
    timed that way at every shape instead of by the harness's rule (its baselines with it; a
    call that cannot be captured in a graph falls back to events and says so). INTERLEAVE: every
    kernel times its own baselines, interleaved with it (`bench_interleaved`), none are shared.
    ON_KERNEL(entry): called after each kernel with the entry so far (a checkpoint)."""
    from aka.evaluate.evaluator import EvalOptions
    from aka.spec.load import load_op

    spec = load_op(op_dir)
    entry = entry if entry is not None else {"kernels": {}, "baselines": {}}
    entry |= {"library": spec.library, "phases": {s.id: s.phase for s in spec.shapes}}
    table = BaselineTable(entry.get("baselines_by_method"))
    start = time.monotonic()
    forced = {s.id: method for s in spec.shapes} if method else {}
    for k in kernels:
        if interleave:
            res, entry["kernels"][k.stem] = bench_interleaved(ev, spec, k, timeout_s, forced)
            entry["device"] = res.get("device", {})
            production_of(entry, spec, op_dir, res)
            print(f"{op_dir.name}/{k.stem}: {res['status']} ({res.get('wall_s', 0):.1f} s, interleaved)", flush=True)
            _checkpoint(entry, table, on_kernel)
            continue
        first = not table.data
        opts = EvalOptions(baselines=None if first else (), timeout_s=timeout_s, methods=forced)
        res = ev.evaluate(spec, k, opts, shipped=True).to_dict()
        if first:
            timed = [s for s in res["shapes"] if s.get("baselines")]
            for s in timed:
                table.record(s["id"], s["time"]["method"], s["baselines"])
            entry["baselines"] = {s["id"]: {b: v["median_us"] for b, v in s["baselines"].items()} for s in timed}
            entry["baseline_methods"] = {s["id"]: {b: v["method"] for b, v in s["baselines"].items()} for s in timed}
            entry["baseline_notes"] = {f"{s['id']}/{b}": v["note"] for s in timed
                                       for b, v in s["baselines"].items() if v.get("note")}
            entry["device"] = res.get("device", {})
            production_of(entry, spec, op_dir, res)
        kentry = kernel_entry(res, k.stem, {})             # baselines set by table.matched below
        if not first and res["status"] == "accepted":
            failed = time_missing(ev, spec, table, kentry["rows"], timeout_s)
            if failed:
                entry.setdefault("baseline_failures", []).append(f"{k.stem}: {failed}")
        table.matched(kentry["rows"])
        if res["status"] == "accepted":
            failed = retime(ev, spec, k, table, kentry["rows"], timeout_s)
            if failed:
                entry.setdefault("baseline_failures", []).append(failed)
        entry["kernels"][k.stem] = kentry
        print(f"{op_dir.name}/{k.stem}: {res['status']} ({res.get('wall_s', 0):.1f} s)", flush=True)
        _checkpoint(entry, table, on_kernel)
    entry["baselines_by_method"] = table.data
    entry["wall_s"] = round(entry.get("wall_s", 0.0) + time.monotonic() - start, 1)
    return entry


def _checkpoint(entry: dict, table: BaselineTable, on_kernel: Any) -> None:
    if on_kernel is not None:
        entry["baselines_by_method"] = table.data
        on_kernel(entry)


PARTIAL = "partial"
"""An operator entry's flag: a run stopped while measuring it; its kernels so far are kept."""


def is_partial(data: dict, op: str) -> bool:
    return bool(data["ops"].get(op, {}).get(PARTIAL))


def resume_point(data: dict, op: str, files: list[Path], redo: bool = False) -> tuple[list[Path], dict | None]:
    """The kernel files of OP still to measure and the entry they join: all of them and a fresh
    entry, unless a stopped run left OP partial (then its other kernels, joining its entry)."""
    if redo or not is_partial(data, op):
        return files, None
    entry = {k: v for k, v in data["ops"][op].items() if k not in (PARTIAL, "measured_at", "label")}
    return [f for f in files if f.stem not in entry["kernels"]], entry


def _stored(entry: dict, label: str, partial: bool = False) -> dict:
    return entry | {"measured_at": _stamp(), "label": label} | ({PARTIAL: True} if partial else {})


def _checkpointer(data: dict, op: str, label: str, save: Any, guard: Any = None) -> Any:
    """bench_op's ON_KERNEL for OP: store the entry so far as partial and save (under GUARD, the
    jobs' lock, where several operators are measured at once)."""
    def keep(entry: dict) -> None:
        with guard or nullcontext():
            data["ops"][op] = _stored(entry, label, partial=True)
            save()
    return keep


def save_json(path: Path, data: dict) -> None:
    """Replace PATH whole (a temporary beside it, then a rename): a run killed mid-save leaves the
    previous file, never a truncated one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data, indent=1))
    os.replace(tmp, path)


def rematch(ev: Any, suite: Path, data: dict, ops: set[str], save: Any = lambda: None,
            stop_after_s: float = math.inf, timeout_s: float = 900,
            kernels_root: Path = Path(__file__).resolve().parents[1] / "reference_kernels") -> list[str]:
    """Results measured before every kernel got its own method's baselines: time the (shape,
    method) pairs their rows lack and set every row against its own; where a baseline could only be
    timed another way (it cannot run in a CUDA graph), time the kernel (from KERNELS_ROOT/op/) that
    way too. The first kernel's rows give the baselines already timed (they were timed its way).
    Returns the operators changed."""
    from aka.spec.load import load_op

    changed, start = [], time.monotonic()
    for op, entry in data["ops"].items():
        if (ops and op not in ops) or not entry["kernels"]:
            continue
        if time.monotonic() - start > stop_after_s:
            print(f"stopping before {op}: --stop-after-s {stop_after_s:g} reached", flush=True)
            break
        table = BaselineTable(entry.get("baselines_by_method"))
        if not table.data:
            first = next(iter(entry["kernels"].values()))
            for r in first["rows"]:
                table.record(r["shape"], r["method"], {
                    _harness_name(b): {"median_us": r[f"{b}_us"], "method": r.get(f"{b}_method")}
                    for b in BASELINES if r.get(f"{b}_us") is not None})
        rows = [r for k in entry["kernels"].values() for r in k["rows"]]
        table.matched(rows)
        accepted = {name: k for name, k in entry["kernels"].items() if k["status"] == "accepted"}
        if not table.missing(rows) and not any(unmatched(k["rows"]) for k in accepted.values()):
            entry["baselines_by_method"] = table.data
            continue
        spec = load_op(suite / op)
        failed = [time_missing(ev, spec, table, rows, timeout_s)]
        table.matched(rows)
        failed += [retime(ev, spec, kernels_root / op / f"{name}.py", table, k["rows"], timeout_s)
                   for name, k in accepted.items()]
        for f in filter(None, failed):
            entry.setdefault("baseline_failures", []).append(f)
        entry["baselines_by_method"] = table.data
        entry["baselines_matched_at"] = _stamp()
        changed.append(op)
        save()
        print(f"{op}: baselines matched", flush=True)
    return changed


def timed_as(args: argparse.Namespace) -> dict[str, Any]:
    """bench_op's timing options from the command line (--method, --interleave)."""
    return {"method": getattr(args, "method", None), "interleave": getattr(args, "interleave", False)}


class Ahead:
    """Compiles operators' kernels in the background (`aka.evaluate.warm`, the tuner's machinery)
    before their turn: while one operator is measured, the next one's kernels compile on the
    host's spare cores into the pool's shared cache of shipped kernels, which the reference kernels'
    evaluations (shipped: they are aka's own code) start from. GPU only; a kernel not compiled in
    time compiles itself, as it would have anyway."""

    def __init__(self, ev: Any, suite: Path, enabled: bool = True):
        self.ev, self.suite = ev, suite
        self.enabled = enabled and not getattr(ev, "interpreter", True)
        self.warmers: dict[str, Any] = {}

    def start(self, ops: list[tuple[str, list[Path]]]) -> None:
        """Begin compiling each of OPS not begun yet (one warmer per operator: its spec and shapes)."""
        if not self.enabled:
            return
        from aka.evaluate import kernel_cache
        from aka.evaluate.evaluator import EvalOptions
        from aka.evaluate.warm import KernelWarmer
        from aka.spec.candidate import Candidate
        from aka.spec.load import load_op

        for op, files in ops:
            if op in self.warmers:
                continue
            spec = load_op(self.suite / op)
            dtype, rows, _ = self.ev.plan(spec, EvalOptions())
            warmer = KernelWarmer(self.ev.pool.root() / kernel_cache.SHIPPED)
            warmer.submit(spec.to_dict(), dtype, [r["params"] for r in rows],
                          [Candidate(source=f.read_text(), origin="tuner", name=f"{op}/{f.stem}") for f in files])
            self.warmers[op] = warmer

    def done(self, op: str) -> None:
        if op in self.warmers:
            self.warmers.pop(op).close()

    def close(self) -> None:
        for op in list(self.warmers):
            self.done(op)


class SharedGpu:
    """An evaluator whose every evaluation holds LOCK, the GPU lock of the other jobs' evaluators
    (`--jobs`): their correctness checks and compiles overlap, their timings never do (the judge
    times under the lock held exclusively), and each gets SHARE of the device's memory."""

    def __init__(self, ev: Any, lock: str, share: float):
        self.ev, self.lock, self.share = ev, lock, share

    def evaluate(self, spec: Any, kernel: Path, options: Any, **kw: Any) -> Any:
        return self.ev.evaluate(spec, kernel, replace(options, gpu_lock=self.lock, gpu_share=self.share), **kw)

    def time_baselines(self, spec: Any, methods: dict, options: Any) -> Any:
        return self.ev.time_baselines(spec, methods, replace(options, gpu_lock=self.lock, gpu_share=self.share))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.ev, name)


def measure(ev: Any, kernels: dict[str, list[Path]], suite: Path, data: dict, wanted: set[str], save: Any,
            args: argparse.Namespace, beside: tuple = ()) -> None:
    """Bench each operator not measured yet, left partial, or named with --redo, saving after each
    kernel; the next operator's kernels compile ahead meanwhile (`Ahead`). With evaluators BESIDE the
    first (`--jobs`, each a `SharedGpu`), that many operators are measured at once, one per evaluator."""
    start = time.monotonic()
    redo = lambda op: bool(args.redo and op in wanted)  # noqa: E731
    todo = [(op, files) for op, files in kernels.items()
            if files and (not wanted or op in wanted)
            and (op not in data["ops"] or is_partial(data, op) or redo(op))]
    if beside:
        return _measure_jobs([ev, *beside], todo, suite, data, save, args, start, redo)
    ahead = Ahead(ev, suite, enabled=getattr(args, "warm", True))
    try:
        for i, (op, files) in enumerate(todo):
            if time.monotonic() - start > args.stop_after_s:
                print(f"stopping before {op}: --stop-after-s {args.stop_after_s:g} reached", flush=True)
                break
            ahead.start(todo[i:i + 2])
            rest, entry = resume_point(data, op, files, redo(op))
            keep = _checkpointer(data, op, args.label, save)
            data["ops"][op] = _stored(bench_op(ev, suite / op, rest, entry=entry, on_kernel=keep, **timed_as(args)),
                                      args.label)
            ahead.done(op)
            save()
    finally:
        ahead.close()


def _measure_jobs(evs: list, todo: list, suite: Path, data: dict, save: Any, args: argparse.Namespace,
                  start: float, redo: Any) -> None:
    """`measure` with one thread per evaluator, each taking the next operator in turn; results and
    saves under one lock, in the order operators finish."""
    guard = threading.Lock()
    queue = list(todo)
    failures: list[BaseException] = []
    alone: list = []  # operators whose reference did not fit one job's share of the memory

    def work(ev: Any) -> None:
        ahead = Ahead(ev, suite, enabled=getattr(args, "warm", True))
        try:
            while True:
                with guard:
                    if not queue or failures:
                        return
                    if time.monotonic() - start > args.stop_after_s:
                        print(f"stopping before {queue[0][0]}: --stop-after-s {args.stop_after_s:g} reached", flush=True)
                        queue.clear()
                        return
                    op, files = queue.pop(0)
                    rest, entry = resume_point(data, op, files, redo(op))
                ahead.start([(op, files)])
                keep = _checkpointer(data, op, args.label, save, guard)
                try:
                    entry = bench_op(ev, suite / op, rest, entry=entry, on_kernel=keep, **timed_as(args))
                except SpecError as exc:
                    if not _out_of_share(exc) or ev.share >= 1.0:
                        raise
                    ahead.done(op)
                    with guard:
                        alone.append((op, files))
                    print(f"{op}: its reference does not fit one job's share of the GPU's memory "
                          f"({ev.share:.2f}); measured alone once the other jobs end", flush=True)
                    continue
                ahead.done(op)
                with guard:
                    data["ops"][op] = _stored(entry, args.label)
                    save()
        except BaseException as exc:  # noqa: BLE001 - raised again on the main thread
            with guard:
                failures.append(exc)
        finally:
            ahead.close()

    threads = [threading.Thread(target=work, args=(ev,), name=f"suite-job-{i}") for i, ev in enumerate(evs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    if alone:
        whole = SharedGpu(evs[0].ev, evs[0].lock, 1.0)
        _measure_jobs([whole], alone, suite, data, save, args, start, redo)


def _out_of_share(exc: SpecError) -> bool:
    """Whether the operator's own reference ran out of its process's memory share (the judge's
    message carries torch's OutOfMemoryError), which a larger share may cure."""
    return "OutOfMemoryError" in str(exc)


def add_kernels(ev: Any, kernels: dict[str, list[Path]], suite: Path, data: dict, names: set[str], save: Any,
                args: argparse.Namespace) -> list[str]:
    """Measure only the named kernels ('op/kernel', new or changed) into their operators' entries,
    against the baselines those already hold; an operator not measured yet is measured whole.
    Returns the names that match no kernel of this suite."""
    by_name = {f"{op}/{f.stem}": (op, f) for op, files in kernels.items() for f in files}
    start = time.monotonic()
    for op in sorted({by_name[n][0] for n in names if n in by_name}):
        if time.monotonic() - start > args.stop_after_s:
            print(f"stopping before {op}: --stop-after-s {args.stop_after_s:g} reached", flush=True)
            break
        if op not in data["ops"]:
            entry = bench_op(ev, suite / op, kernels[op], **timed_as(args))
            data["ops"][op] = entry | {"measured_at": _stamp(), "label": args.label}
        else:
            files = [by_name[n][1] for n in sorted(names) if n in by_name and by_name[n][0] == op]
            entry = bench_op(ev, suite / op, files, entry=data["ops"][op], **timed_as(args))
            for f in files:
                entry["kernels"][f.stem] |= {"measured_at": _stamp(), "label": args.label}
        save()
    return sorted(n for n in names if n not in by_name)


def _mixed(row: dict, baseline: str) -> str:
    """The mark for a speedup whose baseline was timed with events while the kernel ran in a graph
    (†), or whose kernel was timed again with events to match it (‡)."""
    how = row.get(f"{baseline}_method") or baseline_method(row.get(f"{baseline}_us"), None)
    if not how or how == row["method"]:
        return ""
    return RETIMED if how in (row.get("us_as") or {}) else MIXED


def _fmt(v: float | None, p: int = 2) -> str:
    return "—" if v is None else f"{v:.{p}f}"


def _x(v: float | None) -> str:
    """A speedup: a loss that two decimals would round to 1.00 keeps its digits (aka's speedup_text)."""
    return speedup_text(v, suffix="", none="—")


def _sol_range(lo: float | None, hi: float | None) -> str:
    return "—" if lo is None else f"{lo:.2f}–{hi:.2f}"


def _geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def _name(op: str, entry: dict) -> str:
    """The operator's name in a table, marked when a stopped run measured only some of its kernels."""
    return f"{op} (partial: {len(entry['kernels'])} kernels)" if entry.get(PARTIAL) else op


def summary(ops: dict) -> list[dict]:
    """Per operator: its best kernel (lowest geometric-mean time over the shapes) and that kernel's
    speedups, each a geometric mean over the shapes where baseline and kernel were timed the same
    way (`like`: how many of its shapes that is)."""
    out = []
    for op, entry in sorted(ops.items()):
        accepted = {name: k for name, k in entry["kernels"].items() if k["status"] == "accepted" and k["rows"]}
        row = {"op": op, "label": _name(op, entry), "kernel": None,
               "accepted": f"{len(accepted)}/{len(entry['kernels'])}"}
        if accepted:
            name = min(accepted, key=lambda n: _geomean([r["us"] for r in accepted[n]["rows"]]) or math.inf)
            rows = accepted[name]["rows"]
            sols = [r["sol"] for r in rows if r["sol"] is not None]
            row |= {"kernel": name, "shapes": len(rows), "sol_min": min(sols, default=None),
                    "sol_max": max(sols, default=None)}
            for b in ("eager", "compile", "production"):
                like = [r.get(f"x_{b}") for r in rows if r.get(f"x_{b}") is not None and _mixed(r, b) != MIXED]
                row |= {f"x_{b}": _geomean(like), f"like_{b}": len(like)}
        out.append(row)
    return out


def fastest_rows(entry: dict) -> dict[str, dict]:
    """Shape -> the row of the fastest accepted kernel of an operator there."""
    best: dict[str, dict] = {}
    for k in entry["kernels"].values():
        for r in k["rows"] if k["status"] == "accepted" else ():
            if r["shape"] not in best or r["us"] < best[r["shape"]]["us"]:
                best[r["shape"]] = r
    return best


def per_shape(ops: dict, target: float = 1.0) -> list[dict]:
    """Per operator: at each shape the fastest accepted kernel there (what a per-shape dispatcher
    ships), its speedup over torch.compile where both were timed the same way, and how many shapes
    reach TARGET; shapes whose fastest kernel has only a baseline timed another way are counted
    apart (unmatched), never in the means."""
    out = []
    for op, entry in sorted(ops.items()):
        best = fastest_rows(entry)
        if not best:
            continue
        like = {sid: r["x_compile"] for sid, r in best.items() if r.get("x_compile") and _mixed(r, "compile") != MIXED}
        below = sorted(sid for sid, x in like.items() if x < target)
        out.append({"op": op, "label": _name(op, entry), "shapes": len(best), "matched": len(like),
                    "x_compile": _geomean(list(like.values())),
                    "reached": len(like) - len(below), "below": below,
                    "kernels": sorted({best[sid]["kernel"] for sid in best})})
    return out


def _bar_facts(op: str, entry: dict) -> tuple[str, dict[str, str]]:
    """An operator's library (op.yaml `library:`) and each shape's phase: as recorded with its
    results, else (results from before they were) from its op.yaml in this repository's suites."""
    if "phases" in entry:
        return entry.get("library", ""), entry["phases"]
    from aka.spec.load import load_op, operator_folder  # no torch

    folder = operator_folder(Path(__file__).resolve().parents[1] / "suites", op)
    if folder is None:
        return "", {}
    spec = load_op(folder)
    return spec.library, {s.id: s.phase for s in spec.shapes}


def targets(ops: dict) -> list[dict]:
    """Per operator, the fastest kernel at each shape against its bar (issue 14): torch.compile at
    1.0x or more; or, where the reference is one library call (op.yaml `library:`), that library
    (the production baseline where timed, else eager) above 1.0x at decode shapes and at 0.95x or
    more at the others. Shapes whose baseline was timed another way are counted apart."""
    out = []
    for op, entry in sorted(ops.items()):
        best = fastest_rows(entry)
        if not best:
            continue
        library, phases = _bar_facts(op, entry)
        base = ("production" if any(r.get("x_production") for r in best.values()) else "eager") if library else "compile"
        missed, matched = [], 0
        for sid, r in sorted(best.items()):
            x = r.get(f"x_{base}")
            if x is None or _mixed(r, base) == MIXED:
                continue
            matched += 1
            strict = bool(library) and phases.get(sid) == "decode"   # a library call must be beaten at decode
            limit = 1.0 if strict or not library else 0.95
            if not (x > limit if strict else x >= limit):
                # a miss that rounds to the bar itself (0.9996 as "1.000") gets a fourth decimal
                missed.append(f"{sid} {_fmt(x, 4 if round(x, 3) == limit else 3)}×")
        bar = (f"{base} ({library}): > 1.0× decode, ≥ 0.95× others" if library else "torch.compile: ≥ 1.0×")
        out.append({"op": op, "label": _name(op, entry), "bar": bar, "matched": matched, "shapes": len(best),
                    "met": matched - len(missed), "missed": missed})
    return out


def targets_markdown(ops: dict) -> str:
    """The bar table: every operator against its bar at each shape, and how many meet it everywhere."""
    rows = targets(ops)
    lines = ["| op | bar | shapes at the bar | shapes below it |", "|---|---|---|---|"]
    for r in rows:
        seen = f"{r['met']}/{r['matched']}" + ("" if r["matched"] == r["shapes"] else f" (of {r['shapes']} shapes)")
        lines.append(f"| {r['label']} | {r['bar']} | {seen} | {', '.join(r['missed']) or '—'} |")
    ok = sum(1 for r in rows if r["matched"] and not r["missed"])
    lines.append(f"\nOperators at their bar at every matched shape: {ok} of {len(rows)}.")
    return "\n".join(lines) + "\n"


def per_shape_markdown(ops: dict) -> str:
    """The per-shape-best table and the suite's geometric mean over operators."""
    rows = per_shape(ops)
    lines = ["| op | fastest kernel per shape × torch.compile (geomean, matched shapes) | shapes ≥ 1.0× | "
             "shapes below 1.0× | kernels used |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['label']} | {_x(r['x_compile'])} ({r['matched']}/{r['shapes']}) | {r['reached']}/{r['matched']} | "
                     f"{', '.join(r['below']) or '—'} | {', '.join(r['kernels'])} |")
    suite = _geomean([r["x_compile"] for r in rows if r["x_compile"]])
    lines.append(f"\nSuite: geometric mean over {sum(1 for r in rows if r['x_compile'])} operators of the per-shape best "
                 f"× torch.compile = {_fmt(suite)}; {sum(r['reached'] for r in rows)} of "
                 f"{sum(r['matched'] for r in rows)} matched shapes at 1.0× or more.")
    return "\n".join(lines) + "\n"


def _has_production(ops: dict) -> bool:
    """Some operator named a production baseline (older results never did: their tables stay as they were)."""
    return any(entry.get("production") or any(r.get("production_us") for k in entry["kernels"].values()
                                              for r in k["rows"]) for entry in ops.values())


def _joined(entry: dict, kernel: dict, data: dict) -> bool:
    """Whether KERNEL was measured into ENTRY by a later run than its baselines (`--kernels` stamps the
    kernel; a whole operator's run stamps only the operator; `--interleave` times a kernel's own)."""
    stamp = kernel.get("measured_at")
    return bool(stamp) and not data.get("interleave") and stamp != entry.get("measured_at")


def markdown(data: dict) -> str:
    """The summary table, then every kernel at every shape, then what each production baseline calls."""
    ops = data["ops"]
    prod = _has_production(ops)
    extra = " × production (geomean, shapes) |" if prod else ""
    forced = [f"Every kernel and its baselines timed by {data['method']} at every shape (`--method "
              f"{data['method']}`), not by the harness's rule.", ""] if data.get("method") else []
    forced += ["Every kernel timed with its own baselines at each shape, twice in mirrored order "
               "(`--interleave`): each time is the mean of the two.", ""] if data.get("interleave") else []
    lines = forced + ["| op | kernels accepted | fastest kernel | × eager (geomean, shapes) | "
             "× torch.compile (geomean, shapes) |" + extra + " SOL range |",
             "|---|---|---|---|---|" + ("---|" if prod else "") + "---|"]
    for s in summary(ops):
        if s["kernel"] is None:
            lines.append(f"| {s['label']} | {s['accepted']} | — | — | — |" + (" — |" if prod else "") + " — |")
        else:
            cells = [f"{_fmt(s[f'x_{b}'])} ({s[f'like_{b}']}/{s['shapes']})" if s[f"like_{b}"] or b != "production"
                     else "—" for b in ("eager", "compile", "production")[: 3 if prod else 2]]
            lines.append(f"| {s['label']} | {s['accepted']} | {s['kernel']} | " + " | ".join(cells) + " | "
                         f"{_sol_range(s['sol_min'], s['sol_max'])} |")
    extra = (" production µs |", " × production |") if prod else ("", "")
    lines += ["", "| op | kernel | shape | µs | method | eager µs | compile µs |" + extra[0] + " × eager | × compile |"
              + extra[1] + " SOL |", "|---|---|---|---|---|---|---|---|---|" + ("---|---|" if prod else "") + "---|"]
    joined = []
    for op, entry in sorted(ops.items()):
        for kname, k in entry["kernels"].items():
            if _joined(entry, k, data):
                joined.append(f"{op}/{kname} timed at {k['measured_at']} ({k.get('label') or 'no label'}), its "
                              f"baselines at {entry.get('measured_at') or 'an unrecorded time'} "
                              f"({entry.get('label') or 'no label'})")
                kname += JOINED
            if k["status"] != "accepted":
                why = "; ".join(k["rejections"])[:160].replace("|", "/")
                lines.append(f"| {op} | {kname} | — | **{k['status']}**: {why} | | | | | |" + (" | |" if prod else "") + " |")
            for r in k["rows"]:
                p_us = f" {_fmt(r.get('production_us'))} |" if prod else ""
                p_x = f" {_x(r.get('x_production'))}{_mixed(r, 'production')} |" if prod else ""
                also = "".join(f" ({m} {_fmt(t)})" for m, t in sorted((r.get("us_as") or {}).items()))
                lines.append(f"| {op} | {kname} | {r['shape']} | {_fmt(r['us'])}{also} | {r['method']} | "
                             f"{_fmt(r['eager_us'])} | {_fmt(r['compile_us'])} |{p_us} "
                             f"{_x(r['x_eager'])}{_mixed(r, 'eager')} | {_x(r['x_compile'])}{_mixed(r, 'compile')} |"
                             f"{p_x} {_fmt(r['sol'])}{' (!)' if r['flag'] else ''} |")
    if data.get("left_out"):
        by = "; ".join(f"`{c['file']}` ({', '.join(c['cards']) or 'card not recorded'})" for c in data.get("winners_of", []))
        lines += ["", f"Kernels chosen by `--winners`: at each operator, those fastest at one of its shapes in {by}, "
                  "and any kernel those results lack. Left out: " + "; ".join(
                      f"{op}: {', '.join(ks)}" for op, ks in sorted(data["left_out"].items())) + "."]
    if joined:
        lines += ["", f"{JOINED} timed by a later run (`--kernels`) than the baselines it is set against, on the "
                  "same card model: " + "; ".join(joined) + "."]
    if prod:
        lines += ["", "| op | production baseline | module |", "|---|---|---|"]
        for op, entry in sorted(ops.items()):
            if entry.get("production"):
                pr = entry["production"]
                lines.append(f"| {op} | {pr['library']} | {pr['file']} |")
    return "\n".join(lines) + "\n"


def cards_of(data: dict) -> set[str]:
    """The GPU names the operators in DATA were measured on (each entry records its device)."""
    return {e["device"]["name"] for e in data["ops"].values() if (e.get("device") or {}).get("name")}


def torch_card() -> str:
    import torch

    return torch.cuda.get_device_name()


def load(path: Path) -> dict:
    if not path.exists():
        return {"format": FORMAT, "ops": {}}
    data = json.loads(path.read_text())
    if data.get("format") != FORMAT:
        raise SystemExit(f"{path}: format {data.get('format')!r}, this tool writes {FORMAT}; move it aside")
    return data


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("suite", type=Path, nargs="?")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--ops", default="", help="comma-separated operator names (default: all)")
    ap.add_argument("--stop-after-s", type=float, default=float("inf"),
                    help="start no new operator after this many seconds")
    ap.add_argument("--label", default="", help="recorded with the results (e.g. the commit)")
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--render", type=Path, help="print the tables of an existing results file and exit")
    ap.add_argument("--redo", action="store_true",
                    help="measure the --ops operators again even when --out already holds them (new kernels)")
    ap.add_argument("--kernels", default="",
                    help="comma-separated op/kernel names: measure only these (new or changed) kernels into the "
                         "operators --out already holds, against the baselines timed there")
    ap.add_argument("--per-shape", action="store_true",
                    help="with --render: also the table of the fastest kernel at each shape against torch.compile, "
                         "and every operator against its bar (torch.compile, or its library: op.yaml `library:`)")
    ap.add_argument("--match-baselines", action="store_true",
                    help="measure no kernel: time the baselines the rows of --out lack for their own timing "
                         "method (results from before every kernel got its own) and set each row against them")
    ap.add_argument("--method", choices=("graph", "events"), default=None,
                    help="time every kernel (and its baselines) this way at every shape instead of by the "
                         "harness's rule (graph below 20 µs per call, else events): an A/B of the timing rule; "
                         "recorded in --out, which must not hold results timed another way")
    ap.add_argument("--interleave", action="store_true",
                    help="every kernel times its own baselines at every shape, twice in mirrored order "
                         "(kernel, baselines | baselines, kernel): a clock that drifts weighs on both sides; "
                         "recorded in --out, which must not hold results measured without it")
    ap.add_argument("--jobs", type=int, default=1,
                    help="operators measured at once, each by its own worker pool; their timings take turns "
                         "on the GPU (one lock), the rest overlaps (whole operators only: not with --kernels, "
                         "--match-baselines)")
    ap.add_argument("--winners", type=Path, action="append", default=[],
                    help="a results file of another run (repeatable; e.g. the other card's tables): at each "
                         "operator it holds, measure only the kernels fastest at one of its shapes there and any "
                         "kernel it lacks; the kernels left out are recorded and shown with the tables")
    ap.add_argument("--no-warm", dest="warm", action="store_false",
                    help="do not compile the next operator's kernels ahead on spare cores while one is measured")
    args = ap.parse_args()
    if args.render:
        data = load(args.render)
        print(markdown(data) + ("\n" + per_shape_markdown(data["ops"]) + "\n" + targets_markdown(data["ops"])
                                if args.per_shape else ""), end="")
        return 0
    if args.suite is None or args.out is None:
        ap.error("a suite and --out are needed to measure")
    if args.redo and not args.ops:
        ap.error("--redo needs --ops: the operators to measure again")

    names = set(filter(None, args.kernels.split(",")))
    if any(n.count("/") != 1 for n in names):
        ap.error("--kernels takes op/kernel names, e.g. pad_2d/flat_output_1d")
    if names and (args.redo or args.match_baselines):
        ap.error("--kernels measures only the named kernels: not with --redo or --match-baselines")
    if args.match_baselines and not args.out.exists():
        ap.error(f"--match-baselines: no results file {args.out}")
    if args.jobs < 1 or (args.jobs > 1 and (args.match_baselines or names)):
        ap.error("--jobs takes a count of 1 or more, and more than 1 only when whole operators are measured "
                 "(not with --match-baselines or --kernels)")

    if args.winners and (names or args.match_baselines):
        ap.error("--winners chooses the kernels of whole operators: not with --kernels or --match-baselines")
    missing = [str(w) for w in args.winners if not w.is_file()]
    if missing:
        ap.error(f"--winners: no results file {', '.join(missing)}")

    from aka.evaluate.evaluator import Evaluator, detect_device
    from aka.evaluate.pool import WorkerPool

    if detect_device("auto") != "cuda":
        print("suite_bench needs a CUDA GPU: interpreter times are not GPU performance", file=sys.stderr)
        return 3
    root = Path(__file__).resolve().parents[1]
    data = load(args.out)
    if data["ops"] and data.get("method") != args.method and not args.match_baselines:
        ap.error(f"{args.out} holds results timed with method {data.get('method') or 'by the harness rule'}; "
                 f"--method {args.method or '(the rule)'} would mix them: use another --out")
    data["method"] = data.get("method") if args.match_baselines else args.method
    if data["ops"] and bool(data.get("interleave")) != args.interleave:
        ap.error(f"{args.out} holds results measured {'with' if data.get('interleave') else 'without'} "
                 f"--interleave; this run would mix them: use another --out")
    if data["ops"] and data.get("timing_rule") != TIMING_RULE:
        ap.error(f"{args.out} holds results timed under the rule {data.get('timing_rule') or 'before 2026-12-04'!r}, "
                 f"the harness now times by {TIMING_RULE!r}: they would mix; use another --out")
    held = cards_of(data)
    if held and held != {card := torch_card()}:
        ap.error(f"{args.out} holds results measured on {', '.join(sorted(held))}; this GPU is {card}: "
                 f"tables of two cards would mix; use another --out")
    if args.interleave and (args.match_baselines or names):
        ap.error("--interleave measures whole operators (every kernel with its own baselines): "
                 "not with --match-baselines or --kernels")
    data["interleave"], data["timing_rule"] = args.interleave, TIMING_RULE
    kernels = kernels_by_op(args.suite, root)
    if args.winners:
        earlier = [load(w) for w in args.winners]
        kernels, left_out = select_winners(kernels, earlier)
        chosen_by = [{"file": str(w), "cards": sorted(cards_of(e))} for w, e in zip(args.winners, earlier)]
        data["winners_of"] = [c for c in data.get("winners_of", []) if c not in chosen_by] + chosen_by
        data.setdefault("left_out", {}).update(left_out)
    wanted = set(filter(None, args.ops.split(",")))
    save = lambda: save_json(args.out, data)  # noqa: E731
    with ExitStack() as stack:
        pools = [stack.enter_context(WorkerPool("cuda")) for _ in range(args.jobs)]
        ev = Evaluator(pools[0])
        beside: tuple = ()
        if args.jobs > 1:
            lock = os.path.join(stack.enter_context(tempfile.TemporaryDirectory(prefix="aka-suite-gpu-")), "gpu.lock")
            ev, *rest = [SharedGpu(Evaluator(p), lock, 1.0 / args.jobs) for p in pools]
            beside = tuple(rest)
        if args.match_baselines:
            rematch(ev, args.suite, data, wanted, save, args.stop_after_s, kernels_root=root / "reference_kernels")
        elif names:
            unknown = add_kernels(ev, kernels, args.suite, data, names, save, args)
            if unknown:
                print(f"not kernels of {args.suite}: {', '.join(unknown)}", flush=True)
        else:
            measure(ev, kernels, args.suite, data, wanted, save, args, beside)
    left = [op for op in kernels
            if (not wanted or op in wanted) and (op not in data["ops"] or is_partial(data, op))]
    if args.markdown:
        args.markdown.write_text(markdown(data))
    print(markdown(data))
    print(f"operators left to measure: {', '.join(left) or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
