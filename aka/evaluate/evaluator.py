"""The judge's front door: static review here, everything that runs candidate code in the worker,
then roofline and verdict. `Evaluator.evaluate(spec, candidate)` -> EvalResult."""

from __future__ import annotations

import ast
import hashlib
import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from aka.errors import CandidateError, EnvironmentMissing, SpecError, WorkerError
from aka.evaluate import roofline
from aka.evaluate.pool import WorkerPool
from aka.evaluate.review import review
from aka.hardware import calibrate as calibration_cache
from aka.hardware.devices import lookup
from aka.spec import jobs, rules
from aka.spec.op import OpSpec, Roofline as RooflineSpec, Shape
from aka.spec.result import (Comparison, Decision, EvalResult, EvalStatus, Rejection, ShapeResult,
                             Timing)

BYTES_ONLY = RooflineSpec(flops={}, bytes="auto")
"""The floor of an operator that gives no roofline (a KernelBench problem): its bytes, once."""
LOW_PRECISION = {"bfloat16", "float16", "float8_e4m3fn", "float8_e5m2"}


@dataclass
class EvalOptions:
    """How thoroughly to evaluate."""

    shapes: tuple[str, ...] = ()
    """Only these visible shape ids; empty: all."""
    held_out: bool = True
    """Check the held-out shapes too (off only for a focused trial, `Proposal.focus`, which is never
    promoted: whatever it feeds is judged at every shape, held-out ones included)."""
    trials: int = 3
    seed: int = 0
    timeout_s: float | None = None
    time: bool = True
    baselines: tuple[str, ...] | None = None
    """None: the spec's baselines."""
    reps: int = 100
    review: bool = True
    """Test-only switch: skip the static review so tests can prove the sandbox holds for code the
    review would have refused. The command line never exposes it."""
    memory_limit_gb: float = 16.0
    """Address-space limit of a candidate's process on the CPU (not applied on a GPU, where it
    would break CUDA initialization)."""
    gpu_lock: str = ""
    """Lock file shared with evaluations running beside this one on the same GPU (`jobs.OperatorJob.gpu_lock`)."""
    gpu_share: float = 1.0
    """This evaluation's share of the device's memory (1/K beside K-1 others)."""
    methods: dict[str, str] = field(default_factory=dict)
    """Visible shape id -> 'graph' or 'events': time the candidate that way there instead of by the
    harness's own rule (to set it against a baseline that could only be timed one way)."""
    interleave: bool = False
    """Time the candidate and its baselines twice per shape in mirrored order (`jobs.EvalJob.interleave`)."""


def detect_device(requested: str = "auto") -> str:
    """'cuda' or 'cpu'; AKA_DEVICE overrides 'auto'."""
    want = os.environ.get("AKA_DEVICE", requested) if requested == "auto" else requested
    if want == "cpu":
        return "cpu"
    import torch

    has = torch.cuda.is_available()
    if want == "cuda" and not has:
        raise EnvironmentMissing("--device cuda was asked for, but no CUDA device is visible")
    return "cuda" if has else "cpu"


def read_candidate(path: str | Path) -> tuple[str, str]:
    """(source, sha256) of a candidate file, or CandidateError."""
    p = Path(path)
    try:
        source = p.read_text()
    except FileNotFoundError:
        raise CandidateError(f"{p}: candidate file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CandidateError(f"{p}: cannot read the candidate: {exc}") from None
    return source, hashlib.sha256(source.encode()).hexdigest()


def status_of(rejections: list[Rejection]) -> EvalStatus:
    """The verdict of the first rejection's rule (aka.spec.rules); accepted when there is none.
    A rule id the table lacks raises UnknownRule: a bug in aka, never counted as a cheat."""
    if not rejections:
        return EvalStatus.ACCEPTED
    return EvalStatus(rules.rule(rejections[0].rule).status)


class Evaluator:
    """Evaluates candidates of operators through one worker pool."""

    def __init__(self, pool: WorkerPool):
        self.pool = pool
        self.interpreter = pool.device == "cpu"

    def plan(self, spec: OpSpec, options: EvalOptions) -> tuple[str, list[dict[str, Any]], list[str]]:
        """(dtype to run, shapes for the worker, notes)."""
        notes = []
        dtype = spec.dtype
        if self.interpreter and dtype in LOW_PRECISION:
            notes.append(f"{dtype} operator run in float32: the Triton interpreter computes "
                         f"{dtype} wrongly")
            dtype = "float32"
        visible, held = spec.run_shapes(self.interpreter)
        if self.interpreter and not spec.cpu_shapes:
            notes.append("the spec has no cpu_shapes: running its full shapes on the interpreter")
        if options.shapes:
            unknown = set(options.shapes) - {s.id for s in visible}
            if unknown:
                raise CandidateError(f"unknown shape id(s) {sorted(unknown)} for {spec.name} "
                                     f"(known: {', '.join(s.id for s in visible)})")
            visible = tuple(s for s in visible if s.id in options.shapes)
        forced = _forced_methods(options.methods, {s.id for s in visible})
        rows = [_row(s, False) | {"method": forced.get(s.id)} for s in visible]
        rows += [_row(s, True) for s in held] if options.held_out else []
        return dtype, rows, notes

    def evaluate(self, spec: OpSpec, candidate: str | Path, options: EvalOptions | None = None,
                 shipped: bool = False) -> EvalResult:
        """SHIPPED: the candidate is code aka ships (`kernel_cache`); never for a user's or a model's."""
        options = options or EvalOptions()
        source, sha = read_candidate(candidate)
        path = str(Path(candidate).resolve())
        dtype, rows, notes = self.plan(spec, options)
        mode = "cpu-interpreter" if self.interpreter else "gpu"
        base = dict(op=spec.name, candidate=path, candidate_sha256=sha, mode=mode, dtype=dtype)
        static = review(source, path) if options.review else []
        if static:
            return EvalResult(status=status_of(static), rejections=static, notes=notes,
                              shapes=_unchecked(rows), **base)
        tol = spec.tolerance_for(dtype)
        baselines = tuple(options.baselines if options.baselines is not None else spec.baselines)
        if spec.production and "production" in baselines and options.time:
            notes.append(production_note(spec))
        job = jobs.EvalJob(
            device=self.pool.device, timeout_s=options.timeout_s or _default_timeout(self.interpreter, rows),
            spec=spec.to_dict(), dtype=dtype, shapes=_shape_jobs(rows), seed=options.seed, reps=options.reps,
            sandbox=getattr(self.pool, "sandbox", {}), candidate=jobs.CandidateSource(path, source, shipped),
            trials=options.trials, atol=tol.atol, rtol=tol.rtol, tol_outputs=dict(tol.outputs),
            mutates=tuple(spec.mutates), time=options.time, baselines=baselines, interleave=options.interleave,
            memory_limit_bytes=int(options.memory_limit_gb * 2**30), **_sharing(options),
        ).to_dict()
        reply = self.pool.submit(job)
        return self._result(spec, reply, rows, notes, base)

    def _result(self, spec: OpSpec, reply: dict, rows: list[dict], notes: list[str], base: dict) -> EvalResult:
        if reply.get("died"):
            rej = [_locate(Rejection(reply["died"], reply.get("error", "")), base["candidate"])]
            return EvalResult(status=status_of(rej), rejections=rej, shapes=_unchecked(rows), notes=notes,
                              log=reply.get("log", ""), wall_s=reply.get("wall_s", 0.0),
                              phases_s=dict(reply.get("phases_s") or {}), **base)
        _raise_fault(spec, reply)
        if not reply.get("ok"):
            raise WorkerError(f"evaluation worker failed: {reply.get('error')}\n{reply.get('traceback', '')}"
                              f"\n{reply.get('log', '')[-1500:]}")
        rejections = [_locate(Rejection(**r), base["candidate"]) for r in reply["rejections"]]
        device = reply.get("device", {})
        for layer in getattr(self.pool, "missing_layers", []):
            notes.append(f"isolation layer missing: the worker ran without its own {layer} namespace "
                         "(unshare could not create it here; see aka doctor)")
        for layer in getattr(self.pool, "sandbox_missing", []):
            notes.append(f"sandbox layer missing: the candidate's process ran without '{layer}' "
                         "(see aka doctor)")
        shapes = [self._shape(spec, s, device) for s in reply["shapes"]]
        seen = {s.id for s in shapes}
        shapes += _unchecked([r for r in rows if r["id"] not in seen])
        if self.interpreter:
            notes.append("times are CPU-interpreter wall times, not GPU performance; roofline n/a")
        return EvalResult(status=status_of(rejections), rejections=rejections, shapes=shapes,
                          notes=notes + reply.get("notes", []), device=device,
                          log=reply.get("log", ""), wall_s=reply.get("wall_s", 0.0),
                          phases_s=dict(reply.get("phases_s") or {}), **base)

    def _shape(self, spec: OpSpec, s: dict, device: dict) -> ShapeResult:
        res = ShapeResult(id=s["id"], params=s["params"], held_out=s["held_out"], correct=s.get("correct"),
                          max_abs_err=s.get("max_abs_err"), max_rel_err=s.get("max_rel_err"),
                          trials=s.get("trials", 0), detail=s.get("detail", ""),
                          own_time_share=s.get("own_time_share"), input_shapes=s.get("input_shapes", []))
        if s.get("time"):
            res.time = Timing(**s["time"])
            res.baselines = {k: Timing(**v) for k, v in s.get("baselines", {}).items()}
            if not self.interpreter:
                res.speedup = {k: v.median_us / res.time.median_us for k, v in res.baselines.items()}
            dev = lookup(device.get("name", "")) if device.get("kind") == "cuda" else None
            given = spec.roofline_for(s["id"])
            if dev and (given or s.get("bytes_io")):
                cal = calibration_cache.load_cached(device["name"])
                res.roofline = roofline.assess(given or BYTES_ONLY, s["params"], s.get("bytes_io", 0),
                                               res.time.median_us, dev, cal)
                res.roofline.basis = "roofline" if given else "bytes-only"
        return res

    def compare(self, spec: OpSpec, incumbent: str | Path, candidate: str | Path,
                options: EvalOptions | None = None, rounds: int = 5,
                weights: dict[str, float] | None = None, shipped: tuple[bool, bool] = (False, False)) -> Decision:
        """Interleaved incumbent/candidate timing per visible shape (both must be correct already),
        judged over the shapes' weights. A candidate that crashes, hangs or raises while timed is
        a `Decision` with its `failure`, never an exception. SHIPPED: (incumbent, candidate) is
        code aka ships."""
        options = options or EvalOptions()
        dtype, rows, _ = self.plan(spec, options)
        tol = spec.tolerance_for(dtype)
        job = jobs.CompareJob(
            device=self.pool.device, timeout_s=options.timeout_s or 900, spec=spec.to_dict(), dtype=dtype,
            atol=tol.atol, rtol=tol.rtol, tol_outputs=dict(tol.outputs), mutates=tuple(spec.mutates),
            shapes=_shape_jobs(r for r in rows if not r["held_out"]), seed=options.seed,
            sandbox=getattr(self.pool, "sandbox", {}), rounds=rounds,
            incumbent=_source(incumbent, shipped[0]), candidate=_source(candidate, shipped[1]),
            memory_limit_bytes=int(options.memory_limit_gb * 2**30), **_sharing(options),
        ).to_dict()
        reply = self.pool.submit(job)
        _raise_fault(spec, reply)
        phases = dict(reply.get("phases_s") or {})
        failure = _compare_failure(reply, str(Path(candidate).resolve()))
        if failure is not None:
            return Decision(promote=False, reason=f"failed while timed ({failure.rule})", failure=failure,
                            phases_s=phases)
        comparisons = [Comparison.from_dict(c) for c in reply["comparisons"]]
        if weights is None:
            weights = {s.id: s.weight for s in spec.shapes}
        return replace(weigh(comparisons, weights), phases_s=phases)

    def time_baselines(self, spec: OpSpec, methods: dict[str, str | None],
                       options: EvalOptions | None = None) -> dict[str, dict[str, Timing]]:
        """Baseline timings of some visible shapes, each timed with the given method ('graph',
        'events', or None on the interpreter): shape id -> baseline name -> Timing."""
        options = options or EvalOptions()
        dtype, rows, _ = self.plan(spec, options)
        shapes = [{**r, "method": methods[r["id"]]} for r in rows if r["id"] in methods and not r["held_out"]]
        tol = spec.tolerance_for(dtype)
        job = jobs.BaselinesJob(
            device=self.pool.device, timeout_s=options.timeout_s or _default_timeout(self.interpreter, shapes),
            spec=spec.to_dict(), dtype=dtype, shapes=_shape_jobs(shapes), seed=options.seed, reps=options.reps,
            baselines=tuple(options.baselines if options.baselines is not None else spec.baselines),
            atol=tol.atol, rtol=tol.rtol, tol_outputs=dict(tol.outputs), **_sharing(options),
        ).to_dict()
        reply = self.pool.submit(job)
        _raise_fault(spec, reply)
        if not reply.get("ok"):
            raise WorkerError(f"timing the baselines failed: {reply.get('error')}\n{reply.get('log', '')[-1500:]}")
        return {sid: {k: Timing(**v) for k, v in row.items()} for sid, row in reply["baselines"].items()}


SHAPE_GAIN_NOISES = 2.0
"""A promotion on one shape's gain alone needs that gain above this many of the shape's noise
widths: with several shapes compared, one of them clears a single width by chance more often than
the weighted mean does (of 67 recorded comparisons, `tools/reweigh_decisions.py`, the two that
cleared one width but not two were 1.010x at noise 0.010 and 3.19x at noise 1.80)."""
SHAPE_LOSS_CAP = 0.02
"""On one shape's gain alone, no other shape may be slower by more than its noise or than this,
whichever is less: a candidate can widen its own noise (calls that alternate fast and slow), which
must not hide a real loss at a heavy shape (a recorded softmax dispatcher was 0.851x at a sampling
shape, noise 0.264)."""


def weigh(comparisons: list[Comparison], weights: dict[str, float]) -> Decision:
    """Promote when the weighted geometric-mean speedup beats the weighted noise threshold, or when
    it is at least 1 and the candidate is faster by more than SHAPE_GAIN_NOISES times its own noise
    at some shape and slower at none by more than its noise or SHAPE_LOSS_CAP (a dispatcher that
    routes one lagging shape to a faster kernel, the others to the same code: a gain the weights
    would drown); shapes that got slower beyond their own noise are named in the reason."""
    if not comparisons:
        return Decision(promote=False, reason="no shape was compared")
    w = [max(weights.get(c.shape, 1.0), 0.0) or 1e-9 for c in comparisons]
    total = sum(w)
    speedup = math.exp(sum(wi * math.log(c.speedup) for wi, c in zip(w, comparisons)) / total)
    noise = sum(wi * c.noise for wi, c in zip(w, comparisons)) / total
    slower = [c.shape for c in comparisons if c.speedup < 1.0 - c.noise]
    note = f"; slower beyond noise at {', '.join(slower)}" if slower else ""
    if speedup < 1.0:
        return Decision(False, f"slower: {speedup:.3f}x weighted, noise {noise:.3f}{note}",
                        speedup, noise, comparisons)
    faster = [c for c in comparisons if c.speedup - 1.0 > SHAPE_GAIN_NOISES * c.noise]
    losing = [c for c in comparisons if c.speedup < 1.0 - min(c.noise, SHAPE_LOSS_CAP)]
    if speedup - 1.0 <= noise and faster and not losing:
        where = ", ".join(f"{c.shape} {c.speedup:.3f}x (noise {c.noise:.3f})" for c in faster)
        return Decision(True, f"faster by more than {SHAPE_GAIN_NOISES:g}x its noise at {where}, no shape slower beyond "
                              f"its noise or {SHAPE_LOSS_CAP:.0%}; "
                              f"{speedup:.3f}x weighted, noise {noise:.3f}", speedup, noise, comparisons)
    if speedup - 1.0 <= noise:
        return Decision(False, f"within noise: {speedup:.3f}x weighted, noise {noise:.3f}{note}",
                        speedup, noise, comparisons)
    return Decision(True, f"{speedup:.3f}x weighted, noise {noise:.3f}{note}", speedup, noise, comparisons)


def production_note(spec: OpSpec) -> str:
    """What the production baseline is, in one line (shown with the times)."""
    prod = spec.production
    where = os.path.relpath(prod.file, os.path.dirname(spec.path)) if prod else ""
    return f"production baseline: {prod.library} ({where})" + (f"; {prod.note}" if prod.note else "")


def _raise_fault(spec: OpSpec, reply: dict[str, Any]) -> None:
    """Faults that are nobody's candidate's: the reference's code (or its production module's)
    failed or the production module's output differs from the reference's (exit 2, naming the
    file), or the problem cannot fit on this device (exit 3)."""
    fault = reply.get("operator_fault")
    if fault:
        role = "production" if fault.get("role") == "production" else "reference"
        where = fault.get("file") or (spec.production.file if role == "production" and spec.production
                                      else spec.reference)
        stage = fault.get("stage") or "load"
        if fault.get("out_of_memory"):
            raise EnvironmentMissing(f"{where}: the {role} ran out of device memory ({stage}); the device "
                                     f"is too small for this problem: {fault.get('message', '')}")
        what = "production baseline" if role == "production" else "reference"
        raise SpecError(where, role, f"the operator's {what} failed ({stage}): "
                        f"{fault.get('message', '')}", line=fault.get("line"))
    big = reply.get("too_large")
    if big:
        raise EnvironmentMissing(big.get("message") or "the device is too small for this problem")


def _compare_failure(reply: dict[str, Any], candidate: str) -> Rejection | None:
    """The candidate's failure during a comparison, as a rejection (None: it completed)."""
    if reply.get("died"):
        return _locate(Rejection(reply["died"], reply.get("error", "")), candidate)
    if reply.get("failed"):
        return _locate(Rejection(**reply["failed"]), candidate)
    if not reply.get("ok"):
        return _locate(Rejection("runtime-error", str(reply.get("error", ""))), candidate)
    return None


def _locate(rej: Rejection, candidate: str) -> Rejection:
    """Give a runtime rejection the candidate's file and the most telling line."""
    if rej.file and rej.line:
        return rej
    lines = [int(m) for m in re.findall(rf'File "{re.escape(candidate)}", line (\d+)', rej.message)]
    line = lines[-1] if lines else _forward_line(candidate)
    return replace(rej, file=rej.file or candidate, line=rej.line or line)


def _forward_line(candidate: str) -> int | None:
    """Line of ModelNew.forward, where a runtime rule's behaviour starts."""
    try:
        tree = ast.parse(Path(candidate).read_text())
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "ModelNew":
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return item.lineno
    return None


def _forced_methods(methods: dict[str, str], visible: set[str]) -> dict[str, str]:
    """EvalOptions.methods checked: known visible shapes, and only 'graph' or 'events'."""
    unknown = sorted(set(methods) - visible)
    if unknown:
        raise CandidateError(f"EvalOptions.methods names shape id(s) {unknown} that are not visible shapes here")
    bad = {k: v for k, v in methods.items() if v not in ("graph", "events")}
    if bad:
        raise CandidateError(f"EvalOptions.methods: timing method must be 'graph' or 'events', not {bad}")
    return dict(methods)


def _sharing(options: EvalOptions) -> dict[str, Any]:
    """The job fields for a GPU shared with evaluations running at the same time."""
    return {"gpu_lock": options.gpu_lock, "gpu_share": options.gpu_share}


def _shape_jobs(rows: Any) -> tuple[jobs.ShapeJob, ...]:
    return tuple(jobs.ShapeJob(r["id"], r["params"], r["held_out"], r.get("method")) for r in rows)


def _source(path: str | Path, shipped: bool = False) -> jobs.CandidateSource:
    """A candidate as a job carries it: its text, under its resolved path as the display name."""
    source, _ = read_candidate(path)
    return jobs.CandidateSource(str(Path(path).resolve()), source, shipped)


def _unchecked(rows: list[dict[str, Any]]) -> list[ShapeResult]:
    """Results for shapes the run never reached (correct stays None)."""
    return [ShapeResult(id=r["id"], params=r["params"], held_out=r["held_out"]) for r in rows]


def _row(shape: Shape, held_out: bool) -> dict[str, Any]:
    return {"id": shape.id, "params": shape.params, "held_out": held_out}


def _default_timeout(interpreter: bool, rows: list[dict]) -> float:
    return (60.0 + 30.0 * len(rows)) if interpreter else (120.0 + 90.0 * len(rows))
