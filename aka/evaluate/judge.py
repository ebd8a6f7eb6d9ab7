"""The trusted side of an evaluation: decides every verdict, never runs candidate code.

The fork server hands an 'eval' or 'compare' job to a fresh child, which runs `run_eval` /
`run_compare` here. Before touching the GPU it starts the candidate's process (`runner.start`,
confined), then computes the reference itself, asks the candidate's process to call the
candidate on the same seeded inputs, reads back the outputs it hands over and compares them.
Correctness, the honesty checks' conclusions, timings that pass the cross-check and the final
status are decided here, from:

- outputs handed over as files (never a claim of correctness);
- observations the candidate's process reports (torch calls seen, inputs changed, aliasing,
  device work): checked here, believed only as far as they convict;
- claimed times, cross-checked against this process's own clock around a batch of calls it
  started and saw finish, and against the memory-bandwidth floor on a GPU (`forged-timing`);
- baselines (eager, torch.compile, the operator's production module) timed here, away from
  candidate code.

The candidate's process ending, hanging, or sending anything malformed is its own failure.
"""

from __future__ import annotations

import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import torch

from aka.evaluate import compare as cmp
from aka.evaluate import handover, proof
from aka.evaluate.channel import ChannelError
from aka.evaluate.correctness import MISMATCH_RULES, bytes_of
from aka.evaluate.footprint import Footprint, estimate
from aka.evaluate.gpu_lock import GpuLock
from aka.evaluate.loading import Inputs, Operator, compiled_reference, synchronize
from aka.evaluate.remote import CandidateFailed, OperatorFailed, Remote, spawn
from aka.spec import jobs
from aka.spec.op import Tolerance

LARGE_BYTES = 2 << 30
"""Above this many bytes per call (inputs, parameters, outputs), a shape gets one trial (each
call's output is handed over through files)."""
GHOST_PREFIX = 1 << 24
"""Ghost replay hands over only the first this-many elements of each output: whether they are
still right with the candidate's kernels disabled is all it asks."""
CLAIM_FLOOR = 0.25
"""A claimed time below this fraction of what this process's clock allows is a forgery."""
BATCH_TRIES = 3
"""Batches the cross-check runs before it calls a claim forged (it stops at the first that agrees)."""
UNGRAPHED_LAUNCH_US = 40.0
"""Host time per call a batch of plain launches may add on a GPU (Python and launch overhead)."""
BATCH_WINDOW_US = 30_000.0
"""How long the cross-check's batch of calls should take, by the claim."""
FRESH_CALLS_MAX = 32
"""The most calls a batch on fresh inputs makes: each has an input set of its own, made before the
window from the operator's generator."""
FRESH_BYTES = 1 << 30
"""The input sets of one batch on fresh inputs take at most this many bytes (two sets at least)."""
BATCH_CALLS_MAX = 500
"""The most calls one batch makes. On a GPU each is first captured into the batch's CUDA graph at
the host's cost of launching it from Python. At a 3 µs decode shape the old cap of 2000 (until
session 41) captured 2000 launches to time about 6 ms of GPU work, and the batches of one H200
evaluation took 0.4-0.8 s in all (session 40's eval.json, phase `batch`; how much of that was the
capture was not measured apart). 500 such calls still run for well over a millisecond, far beyond
the channel's round trip the window subtracts."""
BANDWIDTH_FLOOR = 0.5
"""A claim under half the time the device's memory needs for the call's bytes is impossible
(L2-resident writes can beat DRAM a little; not by 2x)."""


@dataclass
class Verdicts:
    """What the judge has decided so far for one job (becomes the reply)."""

    rejections: list[dict[str, Any]] = field(default_factory=list)
    shapes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def reject(self, rule: str, message: str, shape: str = "", file: str = "", line: int | None = None) -> None:
        self.rejections.append({"rule": rule, "message": message, "shape": shape, "file": file, "line": line})


def _tolerance(job: jobs.CheckedJob) -> Tolerance:
    return Tolerance(job.atol, job.rtol, {k: tuple(v) for k, v in job.tol_outputs.items()})


def run_eval(job: jobs.EvalJob) -> dict[str, Any]:
    """Correctness, honesty and timing of one candidate, decided here."""
    from aka.evaluate.worker import device_info

    t_end = time.monotonic() + max(1.0, float(job.timeout_s) - 2.0)
    t0 = time.perf_counter()
    remote = spawn(job, job.candidate, "cand", t_end)
    remote.tally("judge-spawn", time.perf_counter() - t0)
    lock = GpuLock(job.gpu_lock)
    v = Verdicts()
    out: dict[str, Any] = {"ok": True, "kernels": []}
    try:
        with remote.timed("judge-operator"):
            op = operator_of(job)
            fp = _footprint(job, op)
            if fp is not None and fp.too_large:
                return {"ok": False, "too_large": fp.to_dict()}
        try:
            with lock.shared():
                remote.send("load", spec=job.spec, device=job.device, dtype=job.dtype,
                            candidate=remote.path, memory_fraction=_share(job, 0.5))
                with remote.timed("judge-device"):       # meanwhile: the candidate imports, starts CUDA
                    out["device"] = device_info(job.device)
                    _start_device(op)
                loaded = remote.wait("load")
        except CandidateFailed as exc:
            rule = exc.rule if exc.rule in ("candidate-exit", "timeout", "crash", "out-of-memory") else "load-error"
            v.reject(rule, exc.message, file=job.candidate.name)
            return _reply(out, v, remote, op)
        out["kernels"] = kernels = list(loaded.get("kernels", []))
        checked = _check_all(job, op, remote, set(kernels), v, lock)
        if not v.rejections and job.time:
            _time_all(job, op, remote, set(kernels), checked, v, lock)
        return _reply(out, v, remote, op)
    except OperatorFailed as exc:
        return {"ok": False, "operator_fault": exc.info}
    except CandidateFailed as exc:
        v.reject(exc.rule, exc.message)
        return _reply(out, v, remote, None)
    finally:
        with remote.timed("judge-close"):
            remote.close()
        remote.tally("judge-total", time.perf_counter() - t0)     # the rest, not disjoint: all of run_eval
        if lock.path:
            remote.tally("judge-gpu-wait", lock.waited_s)            # inside the phases above, not beside them
        lock.close()
        out["phases_s"] = {k: round(t, 4) for k, t in remote.clock.items()}
        if job.device == "cuda":
            out.setdefault("notes", []).append(
                f"kernels compiled by the candidate's process: {remote.compiled()} (its cache started with "
                f"{len(remote.seeded)} entries{', the shipped kernels included' if remote.shipped else ''})")
            warm_utilities()


def _start_device(op: Operator) -> None:
    """Create the judge's own CUDA context now (overlapping the candidate's start) rather than at
    its first reference call."""
    if op.device.type == "cuda":
        torch.empty(1, device=op.device)
        torch.cuda.synchronize()


def warm_utilities() -> None:
    """Compile the kernels every candidate's process launches besides its own (the L2 flush, the
    stream marker, the empty launch-floor kernel) here, once per pool, into the judges' Triton
    cache that `runner.start` copies from."""
    stamp = os.path.join(os.environ.get("TRITON_CACHE_DIR", ""), ".aka-utilities")
    if not os.environ.get("TRITON_CACHE_DIR") or os.path.exists(stamp):
        return
    from aka.evaluate.timing import GpuTimer, empty_kernel

    try:
        dummy = torch.empty(1, device="cuda")
        proof._marker_kernel()[(1,)](dummy)
        empty_kernel()[(1,)](dummy)
        GpuTimer(reps=1).flush()
        torch.cuda.synchronize()
        open(stamp, "w").close()
    except Exception:  # noqa: BLE001 - only a cache; the candidate's process compiles them itself
        pass


def operator_of(job: jobs.OperatorJob) -> Operator:
    """The reference side; any failure of the reference's code is the operator's."""
    try:
        return Operator(job.spec, job.device, job.dtype)
    except Exception as exc:  # noqa: BLE001 - the reference is the user's input
        raise OperatorFailed(_fault(exc, job.spec["reference"], "load")) from None


def _fault(exc: BaseException, reference: str, stage: str) -> dict[str, Any]:
    """OperatorFault's fields, or the same read from any exception's traceback."""
    if hasattr(exc, "file") and hasattr(exc, "stage"):
        return {"message": str(getattr(exc, "message", exc)), "file": exc.file, "line": getattr(exc, "line", None),
                "stage": exc.stage}
    import traceback

    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(frame.filename) == os.path.realpath(reference):
            line = frame.lineno
    return {"message": f"{type(exc).__name__}: {exc}", "file": reference, "line": line, "stage": stage}


def _guard(op: Operator, stage: str, fn: Callable[[], Any], role: str = "reference") -> Any:
    """FN's value; what it raises is the operator's fault, blamed on its reference or (ROLE
    'production') on its production module."""
    file = op.spec["production"]["file"] if role == "production" else op.spec["reference"]
    try:
        return fn()
    except (OperatorFailed, CandidateFailed):
        raise
    except torch.OutOfMemoryError as exc:
        raise OperatorFailed({"message": f"the {role} side ran out of device memory: {exc}",
                              "file": file, "line": None, "stage": stage, "role": role,
                              "out_of_memory": True}) from None
    except Exception as exc:  # noqa: BLE001 - reference code
        raise OperatorFailed({**_fault(exc, file, stage), "role": role}) from None


def _footprint(job: jobs.EvalJob, op: Operator) -> Footprint | None:
    if job.device != "cuda" and not job.memory_limit_bytes:
        return None
    return estimate(op, [s.params for s in job.shapes], job.device,
                    int(job.memory_limit_bytes))


def _share(job: jobs.OperatorJob, part: float) -> float | None:
    """The fraction of device memory one candidate's process may allocate: PART of this job's share
    (an evaluation gives its one candidate half and keeps half for the reference's outputs; a
    comparison gives each side a quarter)."""
    return part * max(0.01, min(1.0, float(job.gpu_share))) if job.device == "cuda" else None


def _reply(out: dict[str, Any], v: Verdicts, remote: Remote, op: Operator | None) -> dict[str, Any]:
    peak: dict[str, Any] = {}
    if op is not None and op.device.type == "cuda":
        peak["judge"] = int(torch.cuda.max_memory_allocated())
        if not remote.ended:
            try:
                peak["candidate"] = remote.ask("peak").get("peak_bytes")
            except (CandidateFailed, OperatorFailed):
                pass
    if peak:
        out.setdefault("device", {})["peak_memory_bytes"] = peak
    out.update(rejections=v.rejections, shapes=v.shapes, notes=v.notes)
    if remote.ended and not v.rejections:
        v.reject("crash", f"the candidate's process ended: {remote.ended}")
    out["log"] = remote.log()
    return out


# -- correctness ---------------------------------------------------------------------------------

def _check_all(job: jobs.EvalJob, op: Operator, remote: Remote, kernels: set[str], v: Verdicts,
               lock: GpuLock) -> set[str]:
    """Every shape, held-out ones included; the ids that passed. Each shape's device work shares
    the GPU lock (other evaluations' checks run beside it, never a timing)."""
    tol, mutates = _tolerance(job), tuple(job.mutates)
    passed: set[str] = set()
    for i, shape in enumerate(job.shapes):
        row = {"id": shape.id, "params": shape.params, "held_out": shape.held_out}
        v.shapes.append(row)
        seed = int(job.seed) + 1000 * i
        try:
            with lock.shared():
                verdict = _check_shape(op, remote, i, shape.params, seed, int(job.trials), tol,
                                       mutates, kernels, row)
        except CandidateFailed as exc:
            row.update(correct=False, detail=exc.message[:600])
            v.reject(exc.rule, exc.message, shape.id)
            if exc.rule in ("timeout", "crash"):
                return passed
            break
        if verdict:
            row.update(correct=False, detail=verdict[1])
            v.reject(verdict[0], verdict[1], shape.id)
            break
        row["correct"] = True
        passed.add(shape.id)
    return passed


def _reference(op: Operator, model: torch.nn.Module, params: dict, seed: int,
               mutates: tuple[str, ...]) -> tuple[Any, dict, Inputs, set[str]]:
    """(reference output, its mutated inputs, the pristine inputs, the inputs its output shares
    memory with) for inputs of this seed."""
    pristine = _guard(op, "inputs", lambda: op.make_inputs(params, seed))
    r = pristine.clone() if mutates else pristine
    ref_out = _guard(op, "forward", lambda: _forward(op, model, r))
    mutated = {m: r.values[m] for m in mutates if m in r.values}
    return ref_out, mutated, pristine, {n for _, n in cmp.aliased(ref_out, r.tensors())}


def _forward(op: Operator, model: torch.nn.Module, inputs: Inputs) -> Any:
    with torch.no_grad():
        out = inputs.call(model)
    synchronize(op.device)
    return out


def _check_shape(op: Operator, remote: Remote, i: int, params: dict, seed: int, trials: int,
                 tol: Tolerance, mutates: tuple[str, ...], kernels: set[str], row: dict) -> tuple[str, str] | None:
    """(rule, detail) of the first failure at one shape, or None."""
    with remote.timed("judge-build"):
        model = _guard(op, "init", lambda: op.build(params, seed))   # the candidate gets its weights
    worst = [0.0, 0.0]
    t = 0
    while t < trials:
        with remote.timed("judge-reference"):
            ref_out, ref_mut, pristine, ref_alias = _reference(op, model, params, seed + t, mutates)
        if t == 0:                                  # the reference works: now the candidate
            remote.ask("build", shape=i, params=params, seed=seed)
            row["bytes_io"] = bytes_of(pristine, model, ref_out)
            row["input_shapes"] = [list(x.shape) for _, x in pristine.tensors()]
            if row["bytes_io"] > LARGE_BYTES and trials > 1:
                trials = 1
                row["note"] = (f"one trial: {row['bytes_io'] / 2**30:.1f} GiB per call moves through "
                               "files between the candidate's process and the judge")
        del pristine
        for k, label in enumerate(("first", "second")):
            # The second call's output is handed over only when it differs from the first's (bit
            # for bit, checked in the candidate's process; not for operators that mutate inputs).
            again = {"same_as": f"t{t}c0"} if k == 1 and not mutates else {"retain": k == 0 and not mutates}
            seen = remote.ask("call", shape=i, params=params, seed=seed + t, name=f"t{t}c{k}",
                              trace=(t == 0 and k == 0), keep=(t == 0 and k == 1), mutates=list(mutates), **again)
            failure = _observations(seen, ref_alias)
            if failure:
                return failure
            if k == 1 and seen.get("same_as") == f"t{t}c0":
                continue                            # the same bytes as the first call's, judged above
            failure = _judge_output(op, remote, f"t{t}c{k}", ref_out, ref_mut, tol, label, worst)
            if failure:
                return failure
        if t == 0:
            failure = _refill(op, model, remote, i, params, seed + 7919, tol, mutates) or \
                _ghost(op, remote, i, params, seed, tol, mutates, kernels, ref_out, ref_mut)
            if failure:
                return failure
        del ref_out, ref_mut
        _free(op)
        t += 1
        row["trials"] = t
    row.update(max_abs_err=worst[0], max_rel_err=worst[1], detail=row.pop("note", ""))
    return None


def _observations(seen: dict[str, Any], ref_alias: set[str]) -> tuple[str, str] | None:
    """What the candidate's process saw that convicts it (never what would clear it)."""
    if seen.get("foreign_output"):
        return ("output-subclass", "the output is not plain tensors and Python scalars: "
                f"{', '.join(map(str, seen['foreign_output']))[:300]} (a Tensor subclass can run code, "
                "and do the work, when the harness first reads it)")
    if seen.get("torch_calls"):
        return ("runtime-torch-compute", "forward computed with torch outside the candidate's own "
                f"kernels at run time: {str(seen['torch_calls'])[:500]}")
    changed = [str(n) for n in seen.get("inputs_changed") or []]
    if changed:
        return ("input-modified", f"the candidate changed input `{changed[0]}`, which the operator "
                "does not declare in `mutates`")
    for pair in seen.get("aliases") or []:
        if isinstance(pair, list) and len(pair) == 2 and pair[1] not in ref_alias:
            return "output-aliases-input", f"{pair[0]} shares memory with input `{pair[1]}`"
    return None


def _judge_output(op: Operator, remote: Remote, name: str, ref_out: Any, ref_mut: dict, tol: Tolerance,
                  label: str, worst: list[float], poisoned: bool = True) -> tuple[str, str] | None:
    with remote.timed("judge-handover"):
        got, got_mut = _collect(op, remote, name, ref_out, ref_mut)
    with remote.timed("judge-compare"):
        m = cmp.compare(got, ref_out, tol.atol, tol.rtol, poisoned=poisoned, per_path=tol.outputs)
    del got
    if not m.ok:
        return MISMATCH_RULES.get(m.kind, "wrong-output"), f"{label} candidate call: {m.detail}"
    worst[0], worst[1] = max(worst[0], m.max_abs), max(worst[1], m.max_rel)
    for name_m, want in ref_mut.items():
        mm = cmp.compare(got_mut.get(name_m), want, tol.atol, tol.rtol)
        if not mm.ok:
            return "wrong-mutation", f"mutated input `{name_m}`: {mm.detail}"
    return None


def _collect(op: Operator, remote: Remote, name: str, ref_out: Any, ref_mut: dict) -> tuple[Any, dict]:
    """The output and mutated inputs the candidate's process handed over, read under a cap of
    twice the reference's bytes (then the files are deleted)."""
    cap = 2 * _nbytes(ref_out) + (1 << 16)
    try:
        got = handover.read(remote.workdir, name, cap, op.device)
        got_mut = handover.read(remote.workdir, name + "-mut", 2 * _nbytes(ref_mut) + (1 << 16), op.device)
    except handover.HandoverError as exc:
        raise CandidateFailed("runtime-error", f"its output could not be read: {exc}") from None
    finally:
        handover.remove(remote.workdir, name)
        handover.remove(remote.workdir, name + "-mut")
    if not isinstance(got_mut, dict):
        raise CandidateFailed("runtime-error", "mutated inputs were not handed over as a mapping")
    return got, got_mut


def _held_to(op: Operator, remote: Remote, name: str, want: Any, tol: Tolerance, rule: str, what: str,
             want_mut: dict | None = None) -> tuple[str, str] | None:
    """The output handed over as NAME against WANT (the reference's) within the tolerance: None when
    it matches, else (RULE, WHAT and the mismatch)."""
    with remote.timed("judge-handover"):
        got, _ = _collect(op, remote, name, want, want_mut or {})
    m = cmp.compare(got, want, tol.atol, tol.rtol, per_path=tol.outputs)
    return None if m.ok else (rule, f"{what}: {m.detail}")


def _nbytes(value: Any) -> int:
    return sum(t.numel() * t.element_size() for _, t in cmp.flatten(value) if isinstance(t, torch.Tensor))


def _refill(op: Operator, model: torch.nn.Module, remote: Remote, i: int, params: dict, seed: int,
            tol: Tolerance, mutates: tuple[str, ...]) -> tuple[str, str] | None:
    """The same input buffers refilled with new values must give the new answer."""
    with remote.timed("judge-reference"):
        ref_out, ref_mut, _, _ = _reference(op, model, params, seed, mutates)
    remote.ask("call", shape=i, params=params, seed=seed, refill_seed=seed, name="refill", mutates=list(mutates))
    return _held_to(op, remote, "refill", ref_out, tol, "stale-output", "the same input buffers refilled with new "
                    "values gave a wrong output (a result cached by address or identity?)", ref_mut)


def _ghost(op: Operator, remote: Remote, i: int, params: dict, seed: int, tol: Tolerance,
           mutates: tuple[str, ...], kernels: set[str], ref_out: Any, ref_mut: dict) -> tuple[str, str] | None:
    """With the candidate's own kernels made no-ops, its result must no longer be right."""
    if not kernels:
        return "no-kernel", "the candidate defines no Triton kernel (@triton.jit) of its own"
    from aka.evaluate.runner import prefix

    try:
        remote.ask("call", shape=i, params=params, seed=seed, ghost=True, name="ghost", mutates=list(mutates),
                   prefix=GHOST_PREFIX)
    except CandidateFailed as exc:
        if exc.rule in ("timeout", "crash"):
            raise
        return None                               # breaking without its kernels is fine
    ref_out = prefix(ref_out, GHOST_PREFIX)
    with remote.timed("judge-handover"):
        got, got_mut = _collect(op, remote, "ghost", ref_out, ref_mut)
    same = cmp.compare((got, [got_mut.get(m) for m in ref_mut]), (ref_out, list(ref_mut.values())),
                       tol.atol, tol.rtol)
    if same.ok:
        return ("ghost-replay", "the result stays correct with the candidate's kernels "
                f"({', '.join(sorted(kernels))}) disabled: the work is done elsewhere")
    return None


def _free(op: Operator) -> None:
    if op.device.type == "cuda":
        torch.cuda.empty_cache()


# -- timing --------------------------------------------------------------------------------------

def runnable_baselines(spec: dict[str, Any], names: tuple[str, ...] | list[str], gpu: bool) -> tuple[list[str], list[str]]:
    """The baselines that can be timed here, and a note on each that cannot."""
    run, notes = [], []
    prod = spec.get("production") or {}
    for name in names:
        if name == "torch.compile" and not gpu:
            notes.append("torch.compile baseline skipped on the CPU interpreter")
        elif name == "production" and not prod:
            notes.append("no production baseline: the operator names none (op.yaml production:)")
        elif name == "production" and not gpu and "gpu" in prod.get("requires", ()):
            notes.append(f"production baseline ({prod.get('library')}) skipped on the CPU interpreter: "
                         "it needs a GPU")
        else:
            run.append(name)
    return run, notes


def _time_all(job: jobs.EvalJob, op: Operator, remote: Remote, kernels: set[str], checked: set[str], v: Verdicts,
              lock: GpuLock) -> None:
    """Each checked visible shape timed, proved and cross-checked, holding the GPU lock alone."""
    gpu = job.device == "cuda"
    baselines, notes = runnable_baselines(job.spec, job.baselines, gpu)
    v.notes.extend(notes)
    for i, row in enumerate(v.shapes):
        if row["held_out"] or row["id"] not in checked:
            continue
        with lock.exclusive():
            if not _time_shape(job, op, remote, kernels, v, i, row, gpu, baselines):
                return


def _time_shape(job: jobs.EvalJob, op: Operator, remote: Remote, kernels: set[str], v: Verdicts, i: int,
                row: dict[str, Any], gpu: bool, baselines: list[str]) -> bool:
    """Time one shape into ROW; False once a rejection ends the timing."""
    seed = int(job.seed) + 1000 * i
    remote.ask("build", shape=i, params=row["params"], seed=seed)
    nsets = _sets(gpu, row.get("bytes_io", 0))
    fixed = job.shapes[i].method if gpu else None
    floor = launch_floor_kw(gpu)
    verify = not job.mutates and row.get("bytes_io", 0) <= LARGE_BYTES
    claim = remote.ask("time", shape=i, params=row["params"], seed=seed, sets=nsets,
                       reps=int(job.reps), proof=gpu, **floor, **({"method": fixed} if fixed else {}),
                       **({"verify": "timed"} if verify else {}))
    timing = _timing(claim)
    failure = _observations(claim, set())           # the timing reply reports only a foreign output
    if verify and not failure:
        failure = _timed_output(op, remote, row["params"], seed, nsets, _tolerance(job))
    if failure:
        v.reject(failure[0], failure[1], row["id"])
        return False
    if gpu:
        rule, detail, share = proof.judge(_work(claim), kernels)
        row["own_time_share"] = share
        if rule:
            v.reject(rule, detail, row["id"])
            return False
    row["baselines"] = {}
    claims = [timing]
    if baselines:
        method = timing["method"] if gpu else None

        def timed_baselines(names: list[str]) -> dict[str, Any]:
            with remote.timed("judge-baselines"):
                return time_baselines(op, row["params"], seed, row.get("bytes_io", 0), names, gpu,
                                      int(job.reps), method, _tolerance(job), row["id"], **floor)
        row["baselines"] = timed_baselines(baselines)
        if job.interleave:                          # A B | B A: a drifting clock weighs on both alike
            def bench() -> dict[str, Any]:
                return _timing(remote.ask("bench", shape=i, params=row["params"], seed=seed, sets=nsets,
                                          reps=int(job.reps), **floor, **({"method": method} if method else {})))
            again = bench()
            later = timed_baselines(list(reversed(baselines)))
            claims.append(again)
            readings = {"": [timing, again], **{n: [t, later[n]] for n, t in row["baselines"].items()}}
            if gpu and any(split_readings(r) for r in readings.values()):   # A B | B A | A B
                third, last = bench(), timed_baselines(baselines)
                claims.append(third)
                for n, r in readings.items():
                    r.append(last[n] if n else third)
            timing = combined(readings.pop(""))
            row["baselines"] = {n: combined(r) for n, r in readings.items()}
    fresh = FreshCheck(op, row["params"], seed, _tolerance(job)) if verify else None
    for claim in claims:                            # each claim on its own: their mean is no looser
        failure = cross_check(remote, i, row["params"], seed, claim, gpu, _floor_us(op, row, job), fresh)
        if failure:
            v.reject(failure[0], failure[1], row["id"])
            return False
    if fresh is not None and fresh.model is not None:
        fresh.model = None
        _free(op)
    row["time"] = timing
    return True


def _timed_output(op: Operator, remote: Remote, params: dict, seed: int, nsets: int,
                  tol: Tolerance) -> tuple[str, str] | None:
    """The output of one more call like the timed ones (the last input set, called after the timing,
    its version counters moved on as before each timed call) against the reference on the same
    inputs: a candidate that computes when checked and skips the work once timed (counting its
    calls) hands over a wrong one here, and cannot tell this call from a timed one."""
    with remote.timed("judge-reference"):
        model = _guard(op, "init", lambda: op.build(params, seed))
        inputs = _guard(op, "inputs", lambda: op.make_inputs(params, seed + 500 + nsets - 1))
        ref_out = _guard(op, "forward", lambda: _forward(op, model, inputs))
    del model, inputs
    failure = _held_to(op, remote, "timed", ref_out, tol, "timed-output", "a call like the timed ones, made right "
                       "after them, gave a wrong output (work done when checked and skipped when timed?)")
    del ref_out
    _free(op)
    return failure


def launch_floor_kw(gpu: bool) -> dict[str, float]:
    """The graph launch floor this GPU's timings add, as keyword arguments for the candidate's
    process and the baselines (`timing.shared_floor_us`): each side adds the same. None on the CPU."""
    if not gpu:
        return {}
    from aka.evaluate.timing import shared_floor_us

    try:
        return {"floor_us": shared_floor_us()}
    except Exception:  # noqa: BLE001 - e.g. no memory for the measuring timer: each side measures its own
        return {}


SPLIT_READINGS = 1.25
"""On a GPU, when one side's two interleaved readings at a shape differ by more than this factor,
every side is timed a third time there and each keeps the median of its three: on the H200 a
candidate once read 36.5 then 82.5 µs (its torch.compile baseline 298.5 and 298.4), and the mean of
the two put a 37 µs kernel in the session's report at 59.5 µs."""


def split_readings(readings: list[dict[str, Any]]) -> bool:
    times = [t["median_us"] for t in readings]
    return min(times) > 0 and max(times) / min(times) > SPLIT_READINGS


def combined(readings: list[dict[str, Any]]) -> dict[str, Any]:
    """One side's interleaved readings at a shape as one: two by `mirrored`, three by their median."""
    if len(readings) == 2:
        return mirrored(*readings)
    mid = sorted(readings, key=lambda t: t["median_us"])[len(readings) // 2]
    return _merged(readings, mid, "interleaved: " + " then ".join(f"{t['median_us']:.4g}" for t in readings)
                   + " µs, the median kept")


def mirrored(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """One side's two timings of an interleaved shape as one: the mean of the medians, the wider
    spread, both medians in the note."""
    mean = {**first, "median_us": (first["median_us"] + second["median_us"]) / 2}
    return _merged([first, second], mean, f"interleaved: {first['median_us']:.4g} then {second['median_us']:.4g} µs")


def _merged(readings: list[dict[str, Any]], base: dict[str, Any], note: str) -> dict[str, Any]:
    """BASE (the reading, or the mean, that stands for all) with the widest spread of READINGS,
    their repetitions summed, their lowest time, and NOTE after the first reading's note."""
    return {**base, "iqr_us": max(t.get("iqr_us", 0.0) for t in readings),
            "cv": max(t.get("cv", 0.0) for t in readings), "reps": sum(int(t.get("reps", 0)) for t in readings),
            "min_us": min(t.get("min_us", t["median_us"]) for t in readings),
            "note": "; ".join(x for x in (readings[0].get("note", ""), note) if x)}


def _sets(gpu: bool, bytes_io: int) -> int:
    """Input sets the timer rotates through (enough to leave the L2 behind on a GPU)."""
    return max(2, min(8, math.ceil(128 * 2**20 / max(bytes_io, 1)))) if gpu else 1


def _timing(reply: dict[str, Any]) -> dict[str, Any]:
    t = reply.get("timing")
    try:
        median = float(t["median_us"])
        ok = median > 0 and math.isfinite(median) and isinstance(t.get("method"), str)
    except (TypeError, KeyError, ValueError):
        ok = False
    if not ok:
        raise CandidateFailed("runtime-error", f"its timing reply is malformed: {str(t)[:200]}")
    keys = ("median_us", "iqr_us", "cv", "reps", "method", "min_us", "note")
    return {k: t[k] for k in keys if k in t}


def _work(reply: dict[str, Any]) -> proof.DeviceWork:
    w = reply.get("work") or {}
    try:
        kernels = [(str(n), float(d), int(s)) for n, d, s in w.get("kernels", [])]
        stream = w.get("timed_stream")
        return proof.DeviceWork(kernels, int(stream) if stream is not None else None)
    except (TypeError, ValueError):
        raise CandidateFailed("runtime-error", "its device-work report is malformed") from None


def _floor_us(op: Operator, row: dict, job: jobs.EvalJob) -> float | None:
    """The least time the device's memory allows for the bytes this call must move (GPU only)."""
    if job.device != "cuda":
        return None
    from aka.evaluate.roofline import compulsory_bytes
    from aka.hardware.devices import lookup

    byts = compulsory_bytes(job.spec, row["id"], row["params"], row.get("bytes_io") or 0)
    dev = lookup(torch.cuda.get_device_properties(0).name)
    return byts / dev.bandwidth * 1e6 if dev and byts else None


@dataclass
class FreshCheck:
    """What a cross-check on fresh inputs needs of the judge at one shape: the reference (its model
    built once, on the first batch) and the tolerance its sampled output is held to."""

    op: Operator
    params: dict
    seed: int
    tol: Tolerance
    model: torch.nn.Module | None = None

    def reference(self, inputs_seed: int, sample_seed: int) -> tuple[Any, int]:
        """The reference's output on the inputs `inputs_seed` makes, sampled as the candidate's
        process samples its own (`runner.sampled`), and the bytes of one such input set."""
        from aka.evaluate.runner import sampled

        op = self.op
        if self.model is None:
            self.model = _guard(op, "init", lambda: op.build(self.params, self.seed))
        inputs = _guard(op, "inputs", lambda: op.make_inputs(self.params, inputs_seed))
        set_bytes = sum(t.numel() * t.element_size() for _, t in inputs.tensors())
        out = sampled(_guard(op, "forward", lambda: _forward(op, self.model, inputs)), sample_seed)
        del inputs
        return out, set_bytes

    def judge(self, remote: Remote, want: Any) -> tuple[str, str] | None:
        return _held_to(self.op, remote, "fresh", want, self.tol, "batch-output", "the call made right after the "
                        "judge's batch of calls on fresh inputs gave a wrong output (work done only when it expects "
                        "a check?)")


def cross_check(remote: Remote, i: int, params: dict, seed: int, timing: dict[str, Any], gpu: bool,
                floor_us: float | None, fresh: FreshCheck | None = None) -> tuple[str, str] | None:
    """Why the claimed time cannot be true (None when it can): faster than the device's memory
    allows (`forged-timing`), or faster than this process's own clock saw a batch of calls run.
    A batch that makes the claim look forged is run again, up to BATCH_TRIES in all, and the claim
    is forged only if every batch says so: a busy host can slow one batch (a 2-core CI machine once
    took over 4x an honest kernel's time for one), but it cannot make a forger's calls faster than
    they are.

    With `fresh`, each batch runs on input sets the candidate has not seen (seeds drawn here at
    random), so a result kept by the inputs' contents cannot make the batch as fast as the claim,
    and one more such call's output is checked against the reference (`batch-output`)."""
    claim = float(timing["median_us"])
    if floor_us and claim < BANDWIDTH_FLOOR * floor_us:
        return ("forged-timing", f"claimed {claim:.3g} µs per call, but moving its {floor_us:.3g} µs worth of "
                "bytes at the device's peak bandwidth takes longer")
    n = int(min(BATCH_CALLS_MAX, max(3, math.ceil(BATCH_WINDOW_US / max(claim, 1.0)))))
    if not gpu:
        n = int(min(n, 5))
    batches = []
    for _ in range(BATCH_TRIES):
        seeds = None
        if fresh is not None:
            seeds = tuple(int.from_bytes(os.urandom(4), "little") for _ in range(2))
            with remote.timed("judge-reference"):
                want, set_bytes = fresh.reference(*seeds)
            if set_bytes > LARGE_BYTES:             # a set for every call would not fit: the timed inputs
                fresh = seeds = None
            else:
                n = int(min(n, FRESH_CALLS_MAX, max(2, FRESH_BYTES // max(set_bytes, 1))))
        window_us, per_call, how = _batch(remote, i, params, seed, n, fresh=seeds)
        if fresh is not None:
            failure = fresh.judge(remote, want)
            del want
            if failure:
                return failure
        batches.append((per_call, window_us))
        allowance = UNGRAPHED_LAUNCH_US if gpu and how != "graph" else 0.0
        if claim >= CLAIM_FLOOR * (per_call - allowance):
            return None
    per_call, window_us = min(batches)
    return ("forged-timing", f"claimed {claim:.4g} µs per call, but {n} calls took {window_us:.0f} µs on the judge's "
            f"clock ({per_call:.4g} µs each, {how}) in the fastest of {len(batches)} batches: the reported time is "
            "not the candidate's")


def _batch(remote: Remote, i: int, params: dict, seed: int, n: int,
           fresh: tuple[int, int] | None = None) -> tuple[float, float, str]:
    """N calls of the candidate at shape I, timed on the judge's clock: the window in µs, the time
    per call net of the channel's round trip, and how the worker ran them ('graph' or plain).
    With `fresh` (inputs seed, sample seed) the calls run on fresh input sets and the sampled
    output of one more call is handed over as 'fresh' (`Runner.batch`)."""
    rtt = _round_trip(remote)
    extra = {"fresh": fresh[0], "sample_seed": fresh[1]} if fresh else {}
    try:
        with remote.timed("batch"):
            remote.seq += 1
            remote.chan.send({"cmd": "batch", "seq": remote.seq, "shape": i, "params": params, "seed": seed, "n": n,
                              **extra})
            ready = remote.receive()
            if ready.get("ok") is False:
                raise _as_failure(ready)
            t0 = time.perf_counter()
            remote.chan.send({"go": True})
            done = remote.receive()
            window_us = (time.perf_counter() - t0) * 1e6
            if fresh and done.get("ok") and done.get("done"):
                done = remote.receive()             # the checked call's reply, after the window
    except ChannelError as exc:
        raise remote._lost(exc) from None
    if not done.get("ok"):
        raise _as_failure(done)
    foreign = _observations(done, set()) if fresh else None   # the checked call's reply reports only a foreign output
    if foreign:
        raise CandidateFailed(*foreign)
    return window_us, max(window_us - rtt, 0.0) / n, str(done.get("how", ""))


def _as_failure(reply: dict[str, Any]) -> Exception:
    if reply.get("operator_fault"):
        return OperatorFailed(dict(reply["operator_fault"]))
    return CandidateFailed(str(reply.get("rule", "runtime-error")), str(reply.get("error", ""))[:6000])


def _round_trip(remote: Remote) -> float:
    """This channel's round trip in µs (subtracted from a batch's window)."""
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        remote.ask("peak")
        best = min(best, (time.perf_counter() - t0) * 1e6)
    return best


def time_baselines(op: Operator, params: dict, seed: int, bytes_io: int, names: list[str], gpu: bool,
                   reps: int, method: str | None, tol: Tolerance, shape_id: str,
                   floor_us: float | None = None) -> dict[str, Any]:
    """Eager and torch.compile of the reference, and the operator's production module, timed here
    the way the candidate was (adding the same graph launch floor); the production module must
    first match the reference."""
    from aka.evaluate.loading import timed_calls
    from aka.evaluate.worker import bencher

    bench = bencher(gpu, reps, floor_us)
    ref = _guard(op, "init", lambda: op.build(params, seed))
    sets = [_guard(op, "inputs", lambda k=k: op.make_inputs(params, seed + 500 + k))
            for k in range(_sets(gpu, bytes_io))]
    row = {}
    for name in names:
        role = "production" if name == "production" else "reference"
        if name == "production":
            model = _guard(op, "init", lambda: op.build_production(params, seed, ref), role)
            check_production(op, ref, model, sets[0], tol, shape_id)
        else:
            model = ref if name == "eager" else compiled_reference(ref)
        row[name] = _guard(op, "forward", lambda: bench(timed_calls(model, sets), method=method), role).__dict__
        del model
    del sets
    _free(op)
    return row


def check_production(op: Operator, ref: torch.nn.Module, prod: torch.nn.Module, inputs: Inputs,
                     tol: Tolerance, shape_id: str) -> None:
    """The production module computes the operator: its output (and the inputs it updates) match
    the reference's on the same inputs within the operator's tolerance, else the operator is at
    fault, so a wrong stand-in can never inflate a speedup."""
    mutates = tuple(op.spec.get("mutates") or ())
    a, b = (inputs.clone(), inputs.clone()) if mutates else (inputs, inputs)
    want = _guard(op, "forward", lambda: _forward(op, ref, a))
    got = _guard(op, "forward", lambda: _forward(op, prod, b), "production")
    pairs = [("", got, want)] + [(f"updated input `{m}`: ", b.values[m], a.values[m]) for m in mutates if m in a.values]
    for what, x, y in pairs:
        m = cmp.compare(x, y, tol.atol, tol.rtol, per_path=tol.outputs)
        if not m.ok:
            raise OperatorFailed({"message": f"its output does not match the reference's at shape {shape_id} "
                                  f"(atol {tol.atol:g}, rtol {tol.rtol:g}): {what}{m.detail}",
                                  "file": op.spec["production"]["file"], "line": None, "stage": "check",
                                  "role": "production"})


# -- interleaved comparison ------------------------------------------------------------------------

REPEAT_WARMUP_MS = 1.0
"""Warm-up of a side's later timings at a shape in a comparison. Its first timing there warms up in
full (GpuTimer's 25 ms: first-call effects, clocks); the rounds after it follow the other side's
timings on the same GPU, so the clocks are up and nothing is compiled any more. A comparison of six
shapes makes up to 120 timings (20 a shape); the 108 repeats at 24 ms less warm-up each are up to
2.6 s of the 6.3-6.8 s the H200 rmsnorm session's comparisons took (an estimate from the timer's
settings, made before comparisons were clocked by phase)."""


def abba(rounds: int, settled: Callable[[], bool]) -> Iterator[tuple[str, dict[str, float]]]:
    """The order of an interleaved comparison at one shape, as (side, extra bench fields) per
    timing: the incumbent once, then per round candidate, candidate, incumbent, with every round
    after the first opened by the incumbent (A | B B A | A B B A ...). `settled()` is asked after
    each round and ends the comparison early. Each side warms up in full only on its first timing."""
    seen: set[str] = set()

    def ask(side: str) -> tuple[str, dict[str, float]]:
        kw = {"warmup_ms": REPEAT_WARMUP_MS} if side in seen else {}
        seen.add(side)
        return side, kw

    yield ask("incumbent")
    for r in range(rounds):
        for side in (("incumbent",) if r else ()) + ("candidate", "candidate", "incumbent"):
            yield ask(side)
        if settled():
            return                               # clear either way: more rounds cannot change it


def run_compare(job: jobs.CompareJob) -> dict[str, Any]:
    """ABBA rounds per shape, incumbent and candidate each in its own confined process (neither
    can slow the other down from inside); each side's claims cross-checked like an evaluation's."""
    from aka.evaluate.timing import decide, settled
    from aka.evaluate.worker import device_info

    t_end = time.monotonic() + max(1.0, float(job.timeout_s) - 2.0)
    t0 = time.perf_counter()
    inc = spawn(job, job.incumbent, "inc", t_end)
    inc.tally("judge-spawn", time.perf_counter() - t0)
    t1 = time.perf_counter()
    cand = spawn(job, job.candidate, "cand", t_end)
    cand.tally("judge-spawn", time.perf_counter() - t1)
    lock = GpuLock(job.gpu_lock)
    side = "incumbent"
    reply: dict[str, Any] = {}
    try:
        op = operator_of(job)
        gpu = job.device == "cuda"
        with lock.shared():
            for side, remote in (("incumbent", inc), ("candidate", cand)):   # both start at once
                remote.send("load", spec=job.spec, device=job.device, dtype=job.dtype, candidate=remote.path,
                            tag=side, memory_fraction=_share(job, 0.25))
            for side, remote in (("incumbent", inc), ("candidate", cand)):
                remote.wait("load")
        results = []
        for i, shape in enumerate(job.shapes):
            with lock.exclusive():                   # both sides' timings: nothing else on the device
                seed = int(job.seed) + 1000 * i
                common = dict(shape=i, params=shape.params, seed=seed, sets=_sets(gpu, 0),
                              reps=int(job.reps), **launch_floor_kw(gpu))
                for side, remote in (("incumbent", inc), ("candidate", cand)):
                    remote.ask("build", shape=i, params=shape.params, seed=seed)
                sides = {"incumbent": inc, "candidate": cand}
                a, b, method = [], [], None
                for side, kw in abba(int(job.rounds), lambda: settled(a, b)):
                    fixed = {"method": method} if method else {}      # the first timing picks it
                    t = _timing(sides[side].ask("bench", **common, **kw, **fixed))
                    method = method or (t["method"] if gpu else None)
                    (a if side == "incumbent" else b).append(t["median_us"])
                fresh = None if job.mutates else FreshCheck(op, shape.params, seed, _tolerance(job))
                for side, remote, times in (("incumbent", inc, a), ("candidate", cand, b)):
                    claim = {"median_us": sorted(times)[len(times) // 2], "method": method or "cpu-interpreter"}
                    forged = cross_check(remote, i, shape.params, seed, claim, gpu, None, fresh)
                    if forged:
                        raise CandidateFailed(forged[0], f"{side}: {forged[1]}")
                del fresh
                _free(op)
                c = decide(a, b, method or "cpu-interpreter")
                c.shape = shape.id
                results.append(c.__dict__)
        reply = {"ok": True, "comparisons": results, "device": device_info(job.device)}
    except OperatorFailed as exc:
        reply = {"ok": False, "operator_fault": exc.info}
    except CandidateFailed as exc:
        if side == "incumbent" and exc.rule not in ("forged-timing", "batch-output"):
            reply = {"ok": False, "error": f"the incumbent failed while timed ({exc.rule}): {exc.message}"}
        else:
            reply = {"ok": True, "failed": {"rule": exc.rule, "message": exc.message, "shape": "", "file": "",
                                            "line": None}, "comparisons": []}
    finally:
        for r in (inc, cand):
            with r.timed("judge-close"):
                r.close()
        reply["phases_s"] = {f"{who}:{k}": round(t, 4) for who, r in (("incumbent", inc), ("candidate", cand))
                             for k, t in r.clock.items()} | {"judge-total": round(time.perf_counter() - t0, 4)}
        if lock.path:
            reply["phases_s"]["judge-gpu-wait"] = round(lock.waited_s, 4)
        lock.close()
    return reply
