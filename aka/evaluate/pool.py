"""Parent side of the evaluation worker: start the fork server, send jobs, enforce limits.

The parent never imports candidate code. The server runs with a scrubbed environment (no keys,
tokens or credentials), without network where `unshare` allows, and is restarted if it dies.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Any

from aka.errors import WorkerError
from aka.sandbox.env import scrubbed_env
from aka.spec import jobs

STARTUP_TIMEOUT_S = 180.0


def worker_env(environ: dict[str, str]) -> dict[str, str]:
    """The scrubbed environment of a process that runs candidate code, able to import this aka."""
    env = scrubbed_env(environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_root(), env.get("PYTHONPATH", "")]))
    return env


ISOLATION_LAYERS = ("network", "pid")
"""Namespaces the worker server can run in: a loopback-only network, and its own PID namespace
with its own /proc (candidates see no process outside the server, hence no other environment
or command line, and every process of the namespace dies with the server)."""


@lru_cache(maxsize=1)
def isolation() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(command prefix, layers present): the strongest `unshare` this platform allows."""
    exe = shutil.which("unshare")
    if not exe or os.environ.get("AKA_NO_UNSHARE"):
        return (), ()
    pid = ("--pid", "--fork", "--mount-proc", "--kill-child")
    for prefix, layers in (((exe, "-n", *pid), ("network", "pid")), ((exe, "-rn", *pid), ("network", "pid")),
                           ((exe, "-n"), ("network",)), ((exe, "-rn"), ("network",))):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix, layers
        except (OSError, subprocess.TimeoutExpired):
            continue
    return (), ()


def network_isolation() -> tuple[str, ...]:
    """Command prefix of the worker's namespaces (empty when unshare is unavailable)."""
    return isolation()[0]


def missing_layers() -> list[str]:
    """Isolation layers this machine could not give the worker."""
    return [layer for layer in ISOLATION_LAYERS if layer not in isolation()[1]]


CONFINED_LAYERS = ("network", "pid", "mount")
"""Layers without which a candidate's process is not started at all, once the machine has shown
it can give them (the judge then runs it strictly: a layer that fails to set up is its crash)."""


@lru_cache(maxsize=1)
def sandbox_state() -> dict[str, Any]:
    """The sandbox layers a candidate's process gets here, probed once per aka process."""
    from aka.sandbox.wrap import probe

    layers = probe()
    return {"strict": all(layers.get(k) for k in CONFINED_LAYERS), "layers": dict(layers)}


def die_with_parent() -> None:
    """In the child before exec: SIGKILL when the aka process that started it dies (Linux)."""
    try:
        import ctypes
        import signal

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class WorkerPool:
    """One fork server; `submit` runs a job in a fresh child and returns its JSON reply."""

    def __init__(self, device: str, isolate_network: bool = True, env: dict[str, str] | None = None):
        self.device = device
        self.isolate_network = isolate_network
        self.extra_env = env or {}
        self.proc: subprocess.Popen | None = None
        self.network_isolated = False
        self.missing_layers: list[str] = []
        self.sandbox: dict[str, Any] = {}
        self.sandbox_missing: list[str] = []
        self._stderr = None
        self.jobs_root: Path | None = None

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.close(now=exc_type is not None)      # Ctrl-C or an error: stop the jobs at once

    def start(self) -> None:
        env = worker_env(dict(os.environ))
        env.update(self.extra_env)
        env["PYTHONUNBUFFERED"] = "1"
        self.jobs_root = jobs_root()
        env["AKA_JOBS_ROOT"] = str(self.jobs_root)
        env["TRITON_CACHE_DIR"] = str(self.jobs_root / "triton-cache")   # judges' (trusted) compiles
        if self.device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        prefix = network_isolation() if self.isolate_network else ()
        self.network_isolated = bool(prefix)
        self.missing_layers = missing_layers() if self.isolate_network else list(ISOLATION_LAYERS)
        self.sandbox = sandbox_state()
        self.sandbox_missing = [k for k, v in self.sandbox["layers"].items() if not v]
        self._stderr = tempfile.TemporaryFile(prefix="aka-worker-", suffix=".log")
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "aka.evaluate.server"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env,
            cwd=tempfile.gettempdir(), text=True, bufsize=1, preexec_fn=die_with_parent,
            start_new_session=True,
        )
        hello = self._read(STARTUP_TIMEOUT_S)
        if not hello or not hello.get("ready"):
            self.close()
            raise WorkerError(f"the evaluation worker did not start: {self._stderr_tail()}")

    def root(self) -> Path:
        """This pool's folder of job folders (its server started first if it is not running)."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        assert self.jobs_root is not None
        return self.jobs_root

    def submit(self, job: "jobs.Job | dict[str, Any]") -> dict[str, Any]:
        """Send one job (an `aka.spec.jobs` record, its document, or a plain {'kind': ...} dict
        built through the record so every default comes from one place), on this pool's device; a
        dead server is restarted and the job reported as a crash."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        job = _document(job, self.device)
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(job) + "\n")
        self.proc.stdin.flush()
        reply = self._read(float(job.get("timeout_s", 300)) + 60)
        if reply is None:
            tail = self._stderr_tail()
            self.close()
            return {"ok": False, "died": "crash", "error": f"the worker server died: {tail}"}
        return reply

    def _read(self, timeout: float) -> dict[str, Any] | None:
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 1.0)
            if ready:
                line = self.proc.stdout.readline()
                if not line:
                    return None
                return json.loads(line)
            if self.proc.poll() is not None:
                return None
        return None

    def _stderr_tail(self, limit: int = 2000) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)
        return self._stderr.read().decode(errors="replace")[-limit:]

    def close(self, now: bool = False) -> None:
        """Stop the server: at once (`now`, or a Ctrl-C while waiting), or after its current job
        within 10 s. Its namespace (or, without one, its process group) dies with it, and its job
        folders are removed; never waits more than STOP_TIMEOUT_S for a killed server."""
        try:
            if self.proc is not None:
                _stop(self.proc, 0.0 if now else 10.0)
        finally:
            self.proc = None
            if getattr(self, "jobs_root", None) is not None:
                _remove(self.jobs_root)
                self.jobs_root = None
            if self._stderr is not None:
                self._stderr.close()
                self._stderr = None


def _document(job: "jobs.Job | dict[str, Any]", device: str) -> dict[str, Any]:
    if isinstance(job, jobs.Job):
        job = job.to_dict()
    if "format" not in job:
        fields = {k: v for k, v in job.items() if k != "kind"}
        job = jobs.KINDS[job["kind"]](**fields).to_dict()
    return {**job, "device": device}


STOP_TIMEOUT_S = 10.0
"""How long `close` waits for a server it killed (one stuck in the kernel is left to the kernel)."""


def _stop(proc: subprocess.Popen, grace: float) -> None:
    """Close the server's stdin, give it `grace` seconds to finish, then kill its group."""
    try:
        if proc.stdin:
            proc.stdin.close()
        if grace:
            proc.wait(timeout=grace)
    except (subprocess.TimeoutExpired, OSError):
        pass
    finally:                                      # an interrupt while waiting kills it too
        if proc.poll() is None:
            _kill_group(proc.pid)
            try:
                proc.wait(timeout=STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                pass


REMOVE_TRIES = 20


def _remove(folder: Path) -> None:
    """Remove a job folder, retrying for up to two seconds: the namespace's processes die just
    after its server does, and one still writing in the folder (a candidate's heartbeat) can leave a
    file behind the first pass (a Ctrl-C test saw the folder outlive the process)."""
    for _ in range(REMOVE_TRIES):
        shutil.rmtree(folder, ignore_errors=True)
        if not os.path.exists(folder):
            return
        time.sleep(0.1)


def _kill_group(pid: int) -> None:
    import signal

    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


JOBS_PREFIX = "aka-jobs-"


def jobs_root() -> Path:
    """A fresh folder for this process's job folders, named by its pid; folders of dead aka
    processes (a `kill -9` leaves them) are swept first."""
    base = Path(tempfile.gettempdir())
    for old in base.glob(f"{JOBS_PREFIX}*"):
        owner = old.name[len(JOBS_PREFIX):].split("-")[0]
        if owner.isdigit() and not _alive(int(owner)):
            shutil.rmtree(old, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{JOBS_PREFIX}{os.getpid()}-", dir=base))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _package_root() -> str:
    """Folder holding the `aka` package, so the server imports this same code."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
