"""Confining a process from the inside: `spawn` forks a child into its own network, PID and mount
namespaces, with the filesystem read-only but for its job folder, limits set, every inherited
descriptor but stdin/stdout/stderr closed and its privileges dropped.

The fork server of the evaluation worker uses it for every child that runs candidate code (the
server keeps torch and triton loaded, so this is a fork, not an exec). `Sandbox.wrap` (for
programs started by exec, e.g. a profiler) uses the same steps through `aka.sandbox.enter`.
"""

from __future__ import annotations

import os
import signal
from typing import Sequence

from aka.sandbox import fs, linux
from aka.sandbox.limits import Limits

NOBODY = 65534
"""The unprivileged user a root-run sandbox switches to."""


def switches_user() -> bool:
    """Whether `drop_privileges` will become `nobody` (root of the real machine) rather than
    only shed capabilities (root of a user namespace, where no other user exists)."""
    return os.geteuid() == 0 and linux.uid_mapped(NOBODY) and linux.uid_mapped(1)


def drop_privileges(writable: Sequence[str]) -> str:
    """Give up every privilege for good: as root of the real machine, become `nobody` (owning
    the writable folders); as root of a user namespace, keep the uid but drop every capability.
    Then no execve may grant privileges again. Returns 'nobody' or 'no-capabilities'."""
    if switches_user():
        for top in writable:
            for root, dirs, files in os.walk(top):
                for name in [root] + [os.path.join(root, n) for n in dirs + files]:
                    os.lchown(name, NOBODY, NOBODY)
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        how = "nobody"
    else:
        linux.drop_capabilities()
        how = "no-capabilities"
    linux.no_new_privs()
    return how


def confine(workdir: str, limits: Limits, *, expose: Sequence[str] = (), mask: Sequence[str] = (),
            new_proc: bool = False, privileges: str = "drop", new_mount_ns: bool = True) -> dict[str, str]:
    """In a process already inside fresh mount (and PID) namespaces: the filesystem, the limits,
    the working folder and the privileges. Returns what was done, by layer. `new_mount_ns` False
    (no mount namespace could be made): the filesystem is left alone, since every mount change
    would be the host's own."""
    if new_mount_ns:
        done = {"mount": "read-only but the job folder"}
        warnings = fs.lock_down([workdir], expose=[*fs.python_paths(), *expose], mask=mask, new_proc=new_proc,
                                for_other_user=privileges == "drop" and switches_user())
        if warnings:
            done["mount"] += f" ({'; '.join(warnings)})"
    else:
        done = {"mount": "missing: no mount namespace, the filesystem is not locked down"}
    limits.apply()
    os.chdir(workdir)
    if privileges == "drop":
        done["privileges"] = drop_privileges([workdir])
    return done


def close_fds(keep: Sequence[int] = (0, 1, 2)) -> None:
    """Close every descriptor but `keep` (the reply pipe and the server's protocol included);
    stdin, stdout and stderr not kept read from and write to /dev/null."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd not in keep:
            os.dup2(null, fd)
    os.close(null)
    try:
        fds = [int(n) for n in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd not in keep and fd > 2:
            try:
                os.close(fd)
            except OSError:
                pass


def spawn(workdir: str, limits: Limits, *, expose: Sequence[str] = (), mask: Sequence[str] = (),
          keep_fds: Sequence[int] = (0, 1, 2), privileges: str = "drop", strict: bool = True) -> int:
    """Fork a confined child: like os.fork, returns 0 in the child and a pid in the parent.

    Three processes: the returned pid (its own process group; dies with the caller) unshares
    network, PID and mount namespaces and forks the namespace's init, which mounts a /proc showing only
    the namespace, locks the filesystem down and forks the child proper. When the child ends,
    init ends, and the kernel kills whatever else the child started in the namespace; killing the
    returned pid (or its group) ends all of it. Exit status and death signal are passed back up.
    `strict`: a layer that cannot be set up ends the child with status 125 instead of running
    it with less isolation."""
    pid = os.fork()
    if pid:
        return pid
    try:
        os.setpgid(0, 0)
        linux.die_with_parent()
        close_fds(keep_fds)
        pid_ns, mount_ns = _unshare(strict)
        init = os.fork()
        if init:
            _mirror(init, init_status=pid_ns)
        linux.die_with_parent()
        confine_args = dict(expose=expose, mask=mask, new_proc=pid_ns, privileges=privileges,
                            new_mount_ns=mount_ns)
        if pid_ns:
            child = os.fork()
            if child:
                _mirror(child, reap_all=True)
            linux.die_with_parent()
        try:
            confine(workdir, limits, **confine_args)
        except OSError:
            if strict:
                raise
        return 0
    except BaseException:                          # noqa: BLE001 - never run it unconfined
        os._exit(125)


def _unshare(strict: bool) -> tuple[bool, bool]:
    """New network, PID and mount namespaces, or at most a mount namespace: (new PID namespace,
    new mount namespace)."""
    try:
        linux.unshare(linux.CLONE_NEWNS | linux.CLONE_NEWPID | linux.CLONE_NEWNET)
        return True, True
    except OSError:
        if strict:
            raise
    try:
        linux.unshare(linux.CLONE_NEWNS)
        return False, True
    except OSError:
        return False, False


def _mirror(child: int, reap_all: bool = False, init_status: bool = False) -> None:
    """Wait for `child` (reaping any orphan on the way), then end the same way it did. A
    namespace's init cannot kill itself with a signal, so it passes signal N on as status
    128 + N (`init_status`: turn that back into the signal)."""
    import resource

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    while True:
        try:
            pid, status = os.waitpid(-1 if reap_all else child, 0)
        except InterruptedError:
            continue
        except ChildProcessError:
            os._exit(125)
        if pid == child:
            break
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
    if init_status and os.WIFEXITED(status) and os.WEXITSTATUS(status) > 128:
        sig = os.WEXITSTATUS(status) - 128
    if sig:
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status))
