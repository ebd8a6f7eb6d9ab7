"""The judge's handle on one confined candidate process: starting it in its own folder, the
command/reply conversation with its deadline, killing it, and the failures that conversation
can end in (the candidate's, or the operator's when reference code fails on its side)."""

from __future__ import annotations

import os
import signal
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from aka.evaluate import kernel_cache
from aka.evaluate.channel import Channel, ChannelError
from aka.evaluate.gpu_lock import locks_root
from aka.evaluate.server import wait_for_exits
from aka.sandbox.limits import Limits
from aka.spec import jobs


class CandidateFailed(Exception):
    """The candidate's process failed a command: its rejection (rule, message)."""

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule, self.message = rule, message


class OperatorFailed(Exception):
    """Reference code failed: the operator's fault, never a candidate's."""

    def __init__(self, info: dict[str, Any]):
        super().__init__(info.get("message", ""))
        self.info = info


@dataclass
class Remote:
    """The judge's handle on one candidate process."""

    pid: int
    chan: Channel
    workdir: str
    deadline: float
    name: str = "candidate"
    display: str = ""
    """The candidate's name for the user (its file); messages say it instead of the copy's path."""
    ended: str = ""
    seq: int = 0
    shipped: bool = False
    """Code aka ships: what its process compiled is published to the shipped-kernel cache."""
    seeded: frozenset[str] = frozenset()
    """The compiled kernels its cache folder held when the process started."""
    seeded_at: float = 0.0
    """When seeding its cache folder ended (what its process writes there is newer)."""
    clock: dict[str, float] = field(default_factory=dict)
    """Seconds spent per phase: each command's round trip (the candidate's side, e.g. `call`,
    `call-first` which compiles its kernels) and the judge's own steps (`judge-...`)."""

    def compiled(self) -> int:
        """How many kernels its process compiled itself (not found, or not usable, in its seeded
        cache)."""
        return kernel_cache.written_since(self.workdir, self.seeded_at)

    def tally(self, phase: str, seconds: float) -> None:
        self.clock[phase] = self.clock.get(phase, 0.0) + seconds

    @contextmanager
    def timed(self, phase: str) -> Iterator[None]:
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self.tally(phase, time.perf_counter() - t0)

    @property
    def path(self) -> str:
        """Where the candidate's text was written for its process."""
        return os.path.join(self.workdir, "candidate.py")

    def named(self, text: str) -> str:
        """`text` with the copy's path replaced by the candidate's own name."""
        return text.replace(self.path, self.display) if self.display else text

    def ask(self, cmd: str, **fields: Any) -> dict[str, Any]:
        """Send a command, wait for its reply; failures become CandidateFailed."""
        self.send(cmd, **fields)
        return self.wait("call-first" if cmd == "call" and fields.get("trace") else cmd)

    def send(self, cmd: str, **fields: Any) -> None:
        """Send a command without waiting: the judge works on while the candidate's process does
        it; `wait` takes the reply (one command outstanding at a time)."""
        self.seq += 1
        try:
            self.chan.send({"cmd": cmd, "seq": self.seq, **fields})
        except ChannelError as exc:
            raise self._lost(exc) from None

    def wait(self, phase: str) -> dict[str, Any]:
        """The reply to the command last sent (its wait charged to `phase`); failures become
        CandidateFailed."""
        t0 = time.perf_counter()
        try:
            reply = self.receive()
        except ChannelError as exc:
            raise self._lost(exc) from None
        finally:
            self.tally(phase, time.perf_counter() - t0)
        if reply.get("operator_fault"):
            raise OperatorFailed(dict(reply["operator_fault"]))
        if not reply.get("ok"):
            rule = str(reply.get("rule", "runtime-error"))
            if rule not in ("runtime-error", "candidate-exit", "out-of-memory", "load-error"):
                rule = "runtime-error"
            raise CandidateFailed(rule, self.named(str(reply.get("error", "")))[:6000])
        return reply

    def receive(self) -> dict[str, Any]:
        """The reply to the last command: anything else on the channel (a line written there by
        candidate code) ends the conversation."""
        reply = self.chan.receive(self.deadline)
        if reply.get("seq") != self.seq:
            raise ChannelError("garbled", f"a message that answers no command: {str(reply)[:200]}")
        return reply

    def _lost(self, exc: ChannelError) -> CandidateFailed:
        if exc.kind == "timeout":
            self.kill()
            return CandidateFailed("timeout", "the candidate's process did not answer before the time limit")
        status = self.kill()
        if exc.kind == "garbled":
            return CandidateFailed("crash", f"the candidate's process sent garbage: {exc}")
        return CandidateFailed("crash", f"the candidate's process ended: {status}")

    def kill(self) -> str:
        """End the process (and its namespace); how it ended, in words."""
        if self.ended:
            return self.ended
        for sig in (None, signal.SIGKILL):
            if sig is not None:
                try:
                    os.killpg(self.pid, sig)
                except (ProcessLookupError, PermissionError):
                    pass
            deadline = time.monotonic() + (0.5 if sig is None else 5.0)
            while time.monotonic() < deadline:
                done, status = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    self.ended = _describe(status)
                    self.chan.close()
                    return self.ended
                time.sleep(0.02)
        self.ended = "killed"
        self.chan.close()
        return self.ended

    def close(self) -> None:
        """The verdict is decided: end the process without waiting for it to exit. Its CUDA
        context's teardown (about 0.1 s on an H200) then runs beside the judge's reply instead of
        before it; nothing of the candidate's runs after the SIGKILL, and whoever reaps orphans
        (the worker server) collects it. AKA_WAIT_EXIT=1 waits for the exit as before
        (`server.wait_for_exits`)."""
        if not self.ended:
            try:
                self.chan.send({"cmd": "bye"})
            except ChannelError:
                pass
            if wait_for_exits():
                self.kill()
            else:
                try:
                    os.killpg(self.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                self.ended = "closed"
                self.chan.close()
        if self.shipped:
            kernel_cache.publish(self.workdir)

    def log(self, limit: int = 4000) -> str:
        """The tail of what the candidate's process printed (never through a link it planted:
        the judge may read files the candidate's process cannot)."""
        try:
            fd = os.open(os.path.join(self.workdir, "log.txt"), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            return ""
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return ""
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - limit))
            return f.read(limit).decode(errors="replace")


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return f"killed by signal {name}"
    code = os.WEXITSTATUS(status)
    if code == 125:
        return "exit status 125 (its sandbox could not be set up)"
    return f"exit status {code}"


def spawn(job: Any, source: jobs.CandidateSource, tag: str, deadline: float) -> Remote:
    """Start one confined candidate process in its own folder under this job's folder, the
    candidate's text written there as `candidate.py` by this (trusted) process: what runs is
    exactly what was reviewed, and no other file of the user's needs exposing."""
    from aka.evaluate import runner

    workdir = os.path.join(os.getcwd(), tag)
    os.makedirs(workdir, mode=0o755, exist_ok=True)
    candidate = os.path.join(workdir, "candidate.py")
    with open(candidate, "w") as f:
        f.write(source.source)
    gpu = job.device == "cuda"
    mem = int(job.memory_limit_bytes)
    cpu_s = int(job.timeout_s * 4)
    limits = Limits(cpu_s=cpu_s, address_space_bytes=None if gpu or not mem else mem, processes=256)
    expose = _operator_files(job.spec)
    if source.shipped and kernel_cache.shipped_folder():
        expose.append(kernel_cache.shipped_folder())      # its linked cache entries, read-only there
    sandbox = job.sandbox or {}
    seeded = kernel_cache.seed(workdir, source.shipped, source.source)
    seeded_at = time.time()
    lock = str(getattr(job, "gpu_lock", "") or "")
    hide = [locks_root()] + ([os.path.dirname(lock)] if lock else [])   # every session's lock, and this job's
    pid, chan = runner.start(workdir, limits, expose, strict=bool(sandbox.get("strict", False)), hide=hide)
    return Remote(pid, chan, workdir, deadline, name=tag, display=source.name, shipped=source.shipped,
                  seeded=seeded, seeded_at=seeded_at)


def _operator_files(spec: dict[str, Any]) -> list[str]:
    """What the candidate's process must read of the operator: its reference (and Atrex input
    file), and their folder when others may enter it (a reference importing a sibling)."""
    files = [p for p in (spec.get("reference"), spec.get("inputs")) if p]
    folder = os.path.dirname(spec["reference"])
    try:
        if os.stat(folder).st_mode & 0o001:
            files.append(folder)
    except OSError:
        pass
    return files
