"""One GPU shared by evaluations that run at the same time, without one perturbing another's
timing: a reader-writer lock on a file (`flock`), taken by the trusted judges only.

A judge times a candidate (or a baseline, or both sides of a comparison) holding the lock
exclusively, so no other process's kernels run on the device meanwhile. Its other device work
(loading, the correctness calls, the reference outputs) holds it shared: those steps of several
evaluations overlap each other, never a timing. Host-only work (starting processes, compiling,
reading outputs from files) holds nothing. Without a lock file (`jobs.OperatorJob.gpu_lock`
empty: the job has the device to itself) every step runs unlocked.

A waiting timing goes first: `flock` alone lets new shared holders in while an exclusive request
waits, so a stream of correctness checks could starve a timing. A second file, the gate, orders
them: a timing takes the gate exclusively before the lock and keeps it; a check passes through the
gate (shared, released once it holds the lock), so it queues behind a timing that is waiting.

The lock is cooperative: candidate code never sees it (its folder, and every session's, is masked
in the candidate's mount namespace). A candidate's process only runs device
work when its judge asks (between its judge's lock and unlock); one that launches work on its own
in the background can slow another candidate down, never make itself faster than it is.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from contextlib import contextmanager
from typing import Iterator


def locks_root() -> str:
    """The folder (created owner-only if missing) under which every session of this user keeps its
    lock's folder (`new_lock_dir`): one path that each candidate's mount namespace masks, so no
    candidate sees any session's lock, one created after it started included."""
    root = os.path.join(tempfile.gettempdir(), f"aka-gpu-locks-{os.getuid()}")
    os.makedirs(root, mode=0o700, exist_ok=True)
    return root


def new_lock_dir() -> str:
    """A fresh folder for one session's lock file, under `locks_root`."""
    return tempfile.mkdtemp(prefix="aka-gpu-lock-", dir=locks_root())


class GpuLock:
    """The judge's side of the lock; `waited_s` adds up the time spent waiting for it."""

    def __init__(self, path: str = ""):
        self.path = path
        self.fd: int | None = None
        self.gate: int | None = None
        self.mode = 0
        self.waited_s = 0.0

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._held(fcntl.LOCK_SH):
            yield

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._held(fcntl.LOCK_EX):
            yield

    @contextmanager
    def _held(self, mode: int) -> Iterator[None]:
        if self.mode == fcntl.LOCK_SH and mode == fcntl.LOCK_EX:
            raise RuntimeError("a timing step nested in a shared one: it would run beside others' device work")
        if not self.path or self.mode:               # no lock file, or already held (a nested step)
            yield
            return
        if self.fd is None:
            self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            self.gate = os.open(self.path + ".gate", os.O_RDWR | os.O_CREAT, 0o600)
        t0 = time.perf_counter()
        fcntl.flock(self.gate, mode)                 # behind any timing already waiting
        fcntl.flock(self.fd, mode)
        if mode == fcntl.LOCK_SH:
            fcntl.flock(self.gate, fcntl.LOCK_UN)    # a check lets the next one through the gate
        self.waited_s += time.perf_counter() - t0
        self.mode = mode
        try:
            yield
        finally:
            self.mode = 0
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            if mode == fcntl.LOCK_EX:
                fcntl.flock(self.gate, fcntl.LOCK_UN)

    def close(self) -> None:
        for fd in (self.fd, self.gate):
            if fd is not None:
                os.close(fd)
        self.fd = self.gate = None
