"""Parent side of the evaluation worker: start the fork server, send jobs, enforce limits.

The parent never imports candidate code. The server runs with a scrubbed environment (no keys,
tokens or credentials), without network where `unshare` allows, and is restarted if it dies.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from typing import Any

from aka.errors import WorkerError

KEEP_PREFIXES = ("CUDA_", "NCCL_", "TORCH_", "NVSHMEM_", "TRITON_", "LC_", "OMP_", "MKL_",
                 "OPENBLAS_", "NVIDIA_", "HIP_", "ROCM_", "HSA_", "AKA_")
KEEP_NAMES = {"PATH", "LD_LIBRARY_PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH", "CC", "CXX",
              "VIRTUAL_ENV", "TERM", "USER", "LOGNAME", "SHELL", "PYTHONUNBUFFERED"}
SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)
STARTUP_TIMEOUT_S = 180.0


def scrubbed_env(environ: dict[str, str]) -> dict[str, str]:
    """What the GPU stack needs, and nothing that looks like a credential."""
    return {
        k: v for k, v in environ.items()
        if (k in KEEP_NAMES or k.startswith(KEEP_PREFIXES)) and not SECRET.search(k)
    }


def worker_env(environ: dict[str, str]) -> dict[str, str]:
    """The scrubbed environment of a process that runs candidate code, able to import this aka."""
    env = scrubbed_env(environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_root(), env.get("PYTHONPATH", "")]))
    return env


@lru_cache(maxsize=1)
def network_isolation() -> tuple[str, ...]:
    """Command prefix giving the worker a loopback-only network namespace, if the platform allows."""
    exe = shutil.which("unshare")
    if not exe or os.environ.get("AKA_NO_UNSHARE"):
        return ()
    for prefix in ((exe, "-n"), (exe, "-rn")):
        try:
            if subprocess.run([*prefix, "true"], capture_output=True, timeout=10).returncode == 0:
                return prefix
        except (OSError, subprocess.TimeoutExpired):
            continue
    return ()


class WorkerPool:
    """One fork server; `submit` runs a job in a fresh child and returns its JSON reply."""

    def __init__(self, device: str, isolate_network: bool = True, env: dict[str, str] | None = None):
        self.device = device
        self.isolate_network = isolate_network
        self.extra_env = env or {}
        self.proc: subprocess.Popen | None = None
        self.network_isolated = False
        self._stderr = None

    def __enter__(self) -> "WorkerPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        env = worker_env(dict(os.environ))
        env.update(self.extra_env)
        env["PYTHONUNBUFFERED"] = "1"
        if self.device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        prefix = network_isolation() if self.isolate_network else ()
        self.network_isolated = bool(prefix)
        self._stderr = tempfile.TemporaryFile(prefix="aka-worker-", suffix=".log")
        self.proc = subprocess.Popen(
            [*prefix, sys.executable, "-m", "aka.evaluate.server"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr, env=env,
            cwd=tempfile.gettempdir(), text=True, bufsize=1,
        )
        hello = self._read(STARTUP_TIMEOUT_S)
        if not hello or not hello.get("ready"):
            self.close()
            raise WorkerError(f"the evaluation worker did not start: {self._stderr_tail()}")

    def submit(self, job: dict[str, Any]) -> dict[str, Any]:
        """Send one job; a dead server is restarted and the job reported as a crash."""
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        job = {"device": self.device, **job}
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

    def close(self) -> None:
        if self.proc is not None:
            try:
                if self.proc.stdin:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (subprocess.TimeoutExpired, OSError, BrokenPipeError):
                self.proc.kill()
                self.proc.wait()
            self.proc = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None


def _package_root() -> str:
    """Folder holding the `aka` package, so the server imports this same code."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
