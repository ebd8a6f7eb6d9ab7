"""The fork server: loads torch and triton once, then forks a fresh child per job.

Run as `python -m aka.evaluate.server`. Protocol: one JSON job per line on stdin, one JSON reply
per line on the protocol descriptor (the original stdout; anything else printed goes to stderr).
Each child runs in its own temporary directory, its own process group, under resource limits,
with its stdout/stderr captured to a log whose tail comes back with the reply. A child that hangs
is killed at the job's time limit; one that dies (segfault, abort) is reported as a crash. The
server never touches CUDA itself, so every child initializes its own context and a child that hit
a CUDA error dies with it.
"""

from __future__ import annotations

import json
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
import time
from typing import Any

LOG_TAIL = 4000


def _limits(job: dict[str, Any]) -> None:
    """Resource limits for a candidate child (CPU time, open files, memory on CPU only)."""
    cpu_s = int(job.get("cpu_limit_s", 0)) or int(job.get("timeout_s", 300)) * 4
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 5))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = min(4096, hard) if hard != resource.RLIM_INFINITY else 4096
    resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    mem = int(job.get("memory_limit_bytes", 0))
    if mem and job.get("device") != "cuda":        # an address-space limit breaks CUDA init
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _child(job: dict[str, Any], workdir: str, wfd: int) -> None:
    """Runs in the forked child; never returns."""
    code = 0
    try:
        os.setpgid(0, 0)
        os.chdir(workdir)
        log = os.open(os.path.join(workdir, "log.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        _limits(job)
        from aka.evaluate.worker import execute

        reply = execute(job)
    except BaseException as exc:  # noqa: BLE001 - the reply must always be written
        import traceback

        reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                 "traceback": traceback.format_exc()[-3000:]}
        code = 1
    sys.stdout.flush()                              # the log is whole before the server may end us
    sys.stderr.flush()
    data = (json.dumps(reply, default=str) + "\n").encode()
    view = memoryview(data)
    while view:
        n = os.write(wfd, view)
        view = view[n:]
    os.close(wfd)
    os._exit(code)


def run_job(job: dict[str, Any]) -> dict[str, Any]:
    """Fork a child for one job; collect its reply, or say how it died."""
    _reap()                         # earlier jobs' processes whose teardown has ended (never this job's)
    workdir = tempfile.mkdtemp(prefix="aka-job-", dir=os.environ.get("AKA_JOBS_ROOT") or None)
    rfd, wfd = os.pipe()
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        _child(job, workdir, wfd)
    os.close(wfd)
    timeout = float(job.get("timeout_s", 300))
    chunks, timed_out = [], False
    while True:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([rfd], [], [], min(left, 1.0))
        if ready:
            chunk = os.read(rfd, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(rfd)
    answer = None if timed_out else _parse(b"".join(chunks))
    if timed_out:
        _kill(pid)
    if answer is not None and not wait_for_exits():
        _end_job(pid, wait=False)   # its reply is whole: end it now, reap it later (its exit overlaps what comes next)
        reply = answer
    else:                           # how it died is the reply: wait for it
        _, status = os.waitpid(pid, 0)
        _end_job(pid)
        reply = answer if answer is not None else _died(status, timed_out, timeout)
    own = _tail(os.path.join(workdir, "log.txt"))      # the judge's; the candidate's comes in the reply
    reply["log"] = (reply.get("log") or "") + (f"\n[worker]\n{own}" if own.strip() else "")
    reply["wall_s"] = round(time.monotonic() - t0, 3)
    shutil.rmtree(workdir, ignore_errors=True)
    return reply


def wait_for_exits() -> bool:
    """AKA_WAIT_EXIT=1: the judge and this server wait for each job process's exit before answering,
    as before reply-before-reap (kept so the two can be timed side by side)."""
    return os.environ.get("AKA_WAIT_EXIT") == "1"


def _end_job(pid: int, wait: bool = True) -> None:
    """Nothing a job started outlives it: SIGKILL to its process group, and, when this server is
    the init of its own PID namespace, to every other process in the namespace (a candidate that
    left its group included). No code of the job's runs after this; `wait` also waits for the
    processes to be gone (as init: every one), else they are reaped later (`_reap`)."""
    _kill(pid)
    if os.getpid() == 1:
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != 1:
                try:
                    os.kill(int(entry), signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
    _reap(block=wait and os.getpid() == 1)


def _reap(block: bool = False) -> None:
    """Collect ended children (and, as init or subreaper, ended orphans); `block`: until none is left."""
    while True:
        try:
            reaped, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            break
        if reaped == 0:
            break


def _parse(raw: bytes) -> dict[str, Any] | None:
    """The child's reply, if it wrote a whole one."""
    try:
        reply = json.loads(raw) if raw.strip() else None
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    return reply if isinstance(reply, dict) else None


def _kill(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            target()
        except ProcessLookupError:
            pass


def _died(status: int, timed_out: bool, timeout: float) -> dict[str, Any]:
    if timed_out:
        return {"ok": False, "died": "timeout", "error": f"killed after the {timeout:g} s time limit"}
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        return {"ok": False, "died": "crash", "error": f"the worker died with signal {name}"}
    return {"ok": False, "died": "crash",
            "error": f"the worker exited with status {os.WEXITSTATUS(status)} and no reply"}


def _tail(path: str) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - LOG_TAIL))
            return f.read().decode(errors="replace")
    except OSError:
        return ""


def main() -> None:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)                                   # stray prints must not corrupt the protocol
    import torch  # noqa: F401 - preload: children fork with torch and triton already imported
    import triton  # noqa: F401

    import aka.evaluate.worker

    aka.evaluate.worker.prewarm()
    if os.getpid() != 1:                            # orphans of answered jobs come here to be reaped
        from aka.sandbox import linux

        try:
            linux.child_subreaper()
        except OSError:
            pass                                    # then init reaps them
    proto.write(json.dumps({"ready": True, "pid": os.getpid()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            job = json.loads(line)
        except json.JSONDecodeError as exc:
            proto.write(json.dumps({"ok": False, "error": f"bad job: {exc}"}) + "\n")
            continue
        proto.write(json.dumps(run_job(job), default=str) + "\n")


if __name__ == "__main__":
    main()
