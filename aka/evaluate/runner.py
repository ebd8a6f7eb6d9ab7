"""The candidate's side of an evaluation: a confined process that runs candidate code on command.

`start` forks it from the judge (before the judge touches CUDA) through `aka.sandbox.confine`:
its own network, PID and mount namespaces, the filesystem read-only but its own folder, every
inherited descriptor closed but one socket, no privileges, limits. It then serves commands from
the judge (`serve`): load the candidate, build a shape's model, call it on seeded inputs, time it.

Nothing it says is a verdict. It hands over what a call produced (files, `handover`) and reports
observations — the torch calls it saw, inputs that changed, storages that overlap, the device
work a profiler recorded, the times it measured — which the judge checks and decides on. Any
exception from candidate code, `SystemExit` and `KeyboardInterrupt` included, is answered as the
candidate's failure; if the process dies instead, the judge sees the channel close.
"""

from __future__ import annotations

import os
import re
import socket
import sys
import traceback
from contextlib import ExitStack
from typing import Any

import torch

from aka.evaluate import compare as cmp
from aka.evaluate import handover, kernel_cache
from aka.evaluate.channel import Channel, ChannelError
from aka.evaluate.loading import (Inputs, Operator, ghosted, kernel_objects, load_module, poisoned, synchronize,
                                  timed_calls)
from aka.evaluate.tracing import traced
from aka.sandbox import confine
from aka.sandbox.limits import Limits


def start(workdir: str, limits: Limits, expose: list[str], strict: bool,
          hide: list[str] | None = None) -> tuple[int, Channel]:
    """Fork the confined candidate process (its kernel cache already seeded, `kernel_cache.seed`);
    (its pid, the judge's end of the channel). `hide`: folders it must not see beyond the user's
    home folders (the GPU lock's, which a candidate could otherwise hold to stall its siblings)."""
    ours, theirs = socket.socketpair()
    pid = confine.spawn(workdir, limits, expose=expose, mask=_masks() + list(hide or ()), keep_fds=(theirs.fileno(),),
                        strict=strict)
    if pid == 0:                                    # the candidate's process: never returns
        code = 0
        try:
            ours.detach()                           # its descriptor is already closed (close_fds)
            _redirect(workdir)
            kernel_cache.secure_links(kernel_cache.own_folder(workdir))   # before any candidate code
            serve(Channel(theirs), workdir)
        except BaseException:                      # noqa: BLE001 - the log says why; the judge sees it end
            import traceback

            traceback.print_exc()
            code = 3
        os._exit(code)
    theirs.close()
    return pid, Channel(ours)


def _masks() -> list[str]:
    from aka.sandbox.wrap import home_folders

    return home_folders()


def _redirect(workdir: str) -> None:
    """stdout and stderr into the log; caches and temporary files in the job folder."""
    log = os.open(os.path.join(workdir, "log.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    os.environ.update(HOME=workdir, TMPDIR=workdir, TRITON_HOME=workdir,
                      TRITON_CACHE_DIR=kernel_cache.own_folder(workdir),
                      TORCHINDUCTOR_CACHE_DIR=os.path.join(workdir, ".inductor"),
                      XDG_CACHE_HOME=os.path.join(workdir, ".cache"))
    import tempfile

    tempfile.tempdir = None


class Runner:
    """State of the candidate's process: the operator, the loaded class, built models, kept inputs."""

    def __init__(self, workdir: str):
        self.workdir = workdir
        self.op: Operator | None = None
        self.cls: Any = None
        self.kernels: dict[str, Any] = {}
        self.models: dict[int, torch.nn.Module] = {}
        self.kept: dict[int, Inputs] = {}
        self.sets: dict[int, list[Inputs]] = {}
        self.retained: dict[str, Any] = {}
        """Outputs kept (cloned) for a later call's `same_as`, by call name."""
        self.timer: Any = None
        self.default_warmup_ms = 25.0

    # -- commands ------------------------------------------------------------------------------

    def load(self, cmd: dict) -> dict:
        device = cmd["device"]
        if device == "cuda" and cmd.get("memory_fraction"):
            torch.cuda.set_per_process_memory_fraction(float(cmd["memory_fraction"]))
        self.op = Operator(cmd["spec"], device, cmd["dtype"])
        module = load_module(cmd["candidate"], cmd.get("tag", "candidate"))
        self.cls = module.ModelNew
        self.kernels = kernel_objects(module)
        return {"kernels": sorted(self.kernels)}

    def build(self, cmd: dict) -> dict:
        op = self._op()
        i = int(cmd["shape"])
        ref = op.build(cmd["params"], int(cmd["seed"]))
        state = ref.state_dict()
        del ref
        args, kwargs = op.init_args(cmd["params"])
        torch.manual_seed(int(cmd["seed"]))
        with op.constructing():
            model = op.place_model(self.cls(*args, **kwargs))
        model.load_state_dict(state, strict=True)
        self.models = {i: model}                    # one shape at a time keeps memory bounded
        self.kept.clear()
        self.sets.clear()
        if self.timer is not None:
            self.timer.forget(i)                    # a new model: its host enqueue time is measured anew
        return {}

    def call(self, cmd: dict) -> dict:
        """Call the candidate once on seeded inputs (or on kept buffers refilled with new
        values) and hand over its output and the inputs it may mutate."""
        op, i = self._op(), int(cmd["shape"])
        model = self.models[i]
        mutates = list(cmd.get("mutates", ()))
        if cmd.get("refill_seed") is not None:
            inputs = self.kept.pop(i)
            fresh = op.make_inputs(cmd["params"], int(cmd["refill_seed"]))
            for name, t in inputs.tensors():
                t.copy_(fresh.values[name])
            del fresh
            pristine = None
        else:
            pristine = op.make_inputs(cmd["params"], int(cmd["seed"]))
            inputs = pristine.clone()
        seen: dict[str, Any] = {}
        with ExitStack() as stack:
            if cmd.get("poison", True):
                stack.enter_context(poisoned())
            if cmd.get("ghost"):
                stack.enter_context(ghosted(self.kernels))
            tracer = stack.enter_context(traced(self.kernels)) if cmd.get("trace") else None
            with torch.no_grad():
                out = inputs.call(model)
            foreign = _settled(out, op.device)
        if foreign:
            seen["foreign_output"] = foreign[:3]    # convicts; nothing of it is handed over
            return seen
        if tracer is not None and tracer.calls:
            seen["torch_calls"] = tracer.summary()
        if pristine is not None:
            seen["inputs_changed"] = [n for n, t in inputs.tensors()
                                      if n not in mutates and not cmp.identical(t, pristine.values[n])]
            del pristine
        seen["aliases"] = [[p, n] for p, n in cmp.aliased(out, inputs.tensors())]
        if cmd.get("prefix"):
            out = prefix(out, int(cmd["prefix"]))
        earlier = self.retained.pop(str(cmd.get("same_as") or ""), None)
        if earlier is not None and not mutates and _same_output(out, earlier):
            seen["same_as"] = cmd["same_as"]        # nothing to hand over: the judge has judged these bytes
        else:
            self._hand_over(cmd["name"], out, {m: inputs.values[m] for m in mutates if m in inputs.values})
        if cmd.get("retain"):                       # a copy: a buffer the candidate reuses must not compare to itself
            self.retained[cmd["name"]] = cmp.map_tensors(lambda t: t.detach().clone(), out)
        del out, earlier
        if cmd.get("keep"):
            self.kept[i] = inputs
        del inputs
        _free(op.device)
        return seen

    def time(self, cmd: dict) -> dict:
        """Time the candidate at a shape (the claim the judge cross-checks); on a GPU also the
        device work one call launches, recorded by the profiler."""
        op, i = self._op(), int(cmd["shape"])
        sets = self._sets(cmd)
        calls = timed_calls(self.models[i], sets)
        reply: dict[str, Any] = {}
        if op.device.type == "cuda":
            from aka.evaluate import proof

            if cmd.get("proof", True):
                work = proof.profile_call(calls[0])
                reply["work"] = {"kernels": work.kernels, "timed_stream": work.timed_stream}
            timing = self._timer(cmd).bench(calls, method=cmd.get("method"), key=i)
        else:
            from aka.evaluate.timing import bench_cpu

            timing = bench_cpu(calls)
        reply["timing"] = timing.__dict__
        if cmd.get("verify"):                       # one more call like the timed ones, its output handed over
            self._offer(reply, cmd["verify"], calls[-1](), op.device)
        return reply

    def bench(self, cmd: dict) -> dict:
        """One timing with a fixed method (a round of an interleaved comparison)."""
        op, i = self._op(), int(cmd["shape"])
        calls = timed_calls(self.models[i], self._sets(cmd))
        if op.device.type == "cuda":
            t = self._timer(cmd).bench(calls, method=cmd.get("method"), key=i)
        else:
            from aka.evaluate.timing import bench_cpu

            t = bench_cpu(calls)
        return {"timing": t.__dict__}

    def batch(self, cmd: dict, chan: Channel) -> dict:
        """`n` calls between the judge's "go" and our "done": the judge's own clock bounds the
        times claimed. On a GPU the calls are one captured graph when the capture works.

        With `fresh` (a seed the judge drew at random) each call has an input set of its own, made
        from the operator's generator before the go, whose values the candidate has not seen: a
        result kept by the inputs' contents (a fingerprint of a few elements) cannot stand in for
        the work. One more call on such a set, made after the window, is handed over as a sample of
        its output (`sampled`, positions drawn from `sample_seed`) for the judge to check: computing
        only for calls it expects to be checked does not pass."""
        op, i, n = self._op(), int(cmd["shape"]), int(cmd["n"])
        model = self.models[i]
        warm = timed_calls(model, self._sets(cmd)[:1])[0]
        fresh = cmd.get("fresh")
        if fresh is None:
            calls, check = [warm] * n, None
        else:                                       # set 0 is the checked call's, 1..n the window's
            sets = [op.make_inputs(cmd["params"], int(fresh) + k) for k in range(n + 1)]
            check, *calls = timed_calls(model, sets)
        warm()
        synchronize(op.device)
        run, how = _graph_batch(warm, calls) if op.device.type == "cuda" else (None, "calls")
        if run is None:
            def run() -> None:
                for call in calls:
                    call()
                synchronize(op.device)
            how = "calls" if op.device.type != "cuda" else "calls (no graph)"
        chan.send({"ok": True, "ready": True, "seq": cmd.get("seq")})
        go = chan.receive()
        if not go.get("go"):
            return {"how": how, "skipped": True}
        run()
        reply: dict[str, Any] = {"how": how}
        if check is not None:
            chan.send({"ok": True, "done": True, "seq": cmd.get("seq")})
            self._offer(reply, "fresh", check(), op.device, lambda out: sampled(out, int(cmd["sample_seed"])))
            del check, calls, sets, run
            _free(op.device)                        # the fresh sets' memory goes back before the next shape
        return reply

    def _offer(self, reply: dict, name: str, out: Any, device: torch.device, cut: Any = None) -> None:
        """One more call's output, settled, handed over as NAME (CUT of it, when given), or, when it
        is not plain data, named in REPLY instead (`foreign_output`, which convicts)."""
        foreign = _settled(out, device)
        if foreign:
            reply["foreign_output"] = foreign[:3]
        else:
            self._hand_over(name, cut(out) if cut else out, {})

    def _hand_over(self, name: str, out: Any, mutated: dict[str, Any]) -> None:
        """A call's output and the inputs it mutated, written for the judge to read."""
        handover.write(self.workdir, name, out)
        handover.write(self.workdir, name + "-mut", mutated)

    def peak(self, cmd: dict) -> dict:
        if self._op().device.type != "cuda":
            return {"peak_bytes": None}
        return {"peak_bytes": int(torch.cuda.max_memory_allocated())}

    # -- helpers -------------------------------------------------------------------------------

    def _op(self) -> Operator:
        if self.op is None:
            raise RuntimeError("no operator loaded")
        return self.op

    def _sets(self, cmd: dict) -> list[Inputs]:
        i = int(cmd["shape"])
        if i not in self.sets:
            op = self._op()
            n = int(cmd.get("sets", 1))
            self.sets[i] = [op.make_inputs(cmd["params"], int(cmd["seed"]) + 500 + k) for k in range(n)]
        return self.sets[i]

    def _timer(self, cmd: dict) -> Any:
        if self.timer is None:
            from aka.evaluate.timing import GpuTimer

            self.timer = GpuTimer(reps=int(cmd.get("reps", 100)))
            self.default_warmup_ms = self.timer.warmup_ms
        if cmd.get("floor_us") is not None:            # the judge's floor: every side adds the same
            self.timer._floor = float(cmd["floor_us"])
        self.timer.reps = int(cmd.get("reps", self.timer.reps))
        self.timer.warmup_ms = min(max(float(cmd.get("warmup_ms", self.default_warmup_ms)), 0.0), 1000.0)
        return self.timer


def _settled(out: Any, device: torch.device) -> list[str]:
    """The output's leaves that are not plain data (`compare.foreign_leaves`, told by exact type
    before any torch call touches it); when there are none, the device is synchronized, so the
    values are final."""
    foreign = cmp.foreign_leaves(out)
    if not foreign:
        synchronize(device)
    return foreign


def _same_output(a: Any, b: Any) -> bool:
    """Bitwise the same output, in the same structure, on the same devices."""
    def devices(v: Any) -> list[str | None]:
        return [x.device.type if isinstance(x, torch.Tensor) else None for _, x in cmp.flatten(v)]

    return handover.skeleton(a) == handover.skeleton(b) and devices(a) == devices(b) and cmp.identical(a, b)


def prefix(value: Any, n: int) -> Any:
    """`value` with every tensor flattened and cut to its first `n` elements (a structure the
    judge can compare against the reference's output cut the same way)."""
    return cmp.map_tensors(lambda t: t.reshape(-1)[:n], value)


SAMPLE = 1 << 16
"""How many elements of each output tensor `sampled` keeps."""


def sampled(value: Any, seed: int) -> Any:
    """`value` with every tensor flattened and, past SAMPLE elements, cut to SAMPLE of them at
    positions drawn from `seed` on the CPU's generator (so the same on every device, and the same
    for any two tensors of one size, in whatever order the structure holds them): the judge draws
    the same positions from the reference's output."""
    def cut(t: torch.Tensor) -> torch.Tensor:
        flat = t.reshape(-1)
        if flat.numel() <= SAMPLE:
            return flat
        at = torch.randint(flat.numel(), (SAMPLE,), generator=torch.Generator().manual_seed(seed))
        return flat[at.to(flat.device)]
    return cmp.map_tensors(cut, value)


def _graph_batch(warm: Any, calls: list[Any]) -> tuple[Any, str]:
    """A CUDA graph of `calls` (after one `warm` call on the capture stream) and a function
    replaying it once (None when capture fails)."""
    try:
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.stream(stream):
            warm()
            with torch.cuda.graph(graph, stream=stream):
                for call in calls:
                    call()
        torch.cuda.current_stream().wait_stream(stream)
        torch.cuda.synchronize()
    except Exception:  # noqa: BLE001 - not capturable: plain launches
        from aka.evaluate.timing import recover_failed_capture
        recover_failed_capture(torch)
        return None, ""

    def run() -> None:
        graph.replay()
        torch.cuda.synchronize()
    return run, "graph"


def _free(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.empty_cache()


OOM_TEXT = re.compile(r"can't allocate memory|out of memory|Cannot allocate memory", re.IGNORECASE)
"""How an allocation beyond the address-space limit reads on the CPU (torch raises RuntimeError)."""


def _failure(exc: BaseException) -> dict:
    """A candidate failure as data: its rule and the traceback's end."""
    if isinstance(exc, (SystemExit, KeyboardInterrupt, GeneratorExit)):
        rule = "candidate-exit"
    elif isinstance(exc, (MemoryError, torch.OutOfMemoryError)) or \
            (isinstance(exc, RuntimeError) and OOM_TEXT.search(str(exc))):
        rule = "out-of-memory"
    else:
        rule = "runtime-error"
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    from aka.evaluate.loading import OperatorFault  # noqa: PLC0415 - absent in older layouts
    if isinstance(exc, OperatorFault):
        return {"ok": False, "operator_fault": {"message": str(getattr(exc, "message", exc)),
                                                "file": getattr(exc, "file", ""),
                                                "line": getattr(exc, "line", None)}}
    return {"ok": False, "rule": rule, "error": f"{type(exc).__name__}: {exc}\n{text[-1500:]}"}


COMMANDS = ("load", "build", "call", "time", "bench", "peak")


def serve(chan: Channel, workdir: str) -> None:
    """Answer the judge's commands until it says bye or goes away."""
    runner = Runner(workdir)
    while True:
        try:
            cmd = chan.receive()
        except ChannelError:
            return
        what = cmd.get("cmd")
        if what == "bye":
            return
        try:
            if what == "batch":
                reply = {"ok": True, **runner.batch(cmd, chan)}
            elif what in COMMANDS:
                reply = {"ok": True, **getattr(runner, what)(cmd)}
            else:
                reply = {"ok": False, "rule": "runtime-error", "error": f"unknown command {what!r}"}
        except BaseException as exc:  # noqa: BLE001 - candidate code ran: its failure is data
            reply = _failure(exc)
        sys.stdout.flush()
        reply["seq"] = cmd.get("seq")
        chan.send(reply)
