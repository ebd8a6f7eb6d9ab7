"""The filesystem a sandboxed process sees: everything read-only except its job folder.

Called inside a fresh mount namespace (the caller unshared CLONE_NEWNS, or runs under
`unshare --mount`), so none of this is visible outside it:

1. every mount becomes private (nothing propagates back to the host);
2. masked folders (the user's home, the folder of all job folders) are covered by an empty
   tmpfs, and only what the process needs under them (Python, its own job folder) is bound back;
3. /dev/shm becomes a small private tmpfs; /proc may be remounted for a new PID namespace;
4. every other mount is remounted read-only, except the writable folders.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Iterable, Sequence

from aka.sandbox import linux
from aka.sandbox.linux import MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_PRIVATE, MS_RDONLY, MS_REC, MS_REMOUNT

SHM_BYTES = 1 << 30


def mount_points() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) of every mount this process sees, parents first."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])
            found.append((point, set(fields[5].split(","))))
    return found


def python_paths() -> list[str]:
    """What a Python process needs to read to keep importing: its prefixes and sys.path."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
             os.path.dirname(os.path.realpath(sys.executable))}
    paths |= {p for p in sys.path if p and os.path.isdir(p)}
    paths.add(str(Path(__file__).resolve().parents[2]))          # the folder holding `aka`
    return sorted(os.path.realpath(p) for p in paths)


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _outermost(paths: Iterable[str]) -> list[str]:
    """The paths that are not inside another of them."""
    keep: list[str] = []
    for p in sorted(set(paths), key=len):
        if not any(_under(p, k) for k in keep):
            keep.append(p)
    return keep


def closed_ancestors(paths: Iterable[str]) -> list[str]:
    """For each path, its outermost ancestor folder that other users cannot enter (mode without
    o+x, e.g. /root or pytest's /tmp/pytest-of-root): masking it makes the path reachable."""
    found = []
    for path in paths:
        parts = Path(path).parts
        for i in range(2, len(parts)):
            folder = str(Path(*parts[:i]))
            try:
                if not os.stat(folder).st_mode & 0o001:
                    found.append(folder)
                    break
            except OSError:
                break
    return found


def lock_down(writable: Sequence[str], expose: Sequence[str] = (), mask: Sequence[str] = (),
              new_proc: bool = False, shm_bytes: int | None = SHM_BYTES,
              for_other_user: bool = False) -> list[str]:
    """Make this mount namespace read-only except `writable`; hide `mask` folders but for the
    `writable` and `expose` paths under them. `for_other_user`: the process will switch to an
    unprivileged user, so closed folders above what it needs are masked too (it can enter the
    masks). Returns warnings (mounts that could not be made read-only); raises OSError when the
    root itself cannot be."""
    writable = [os.path.realpath(w) for w in writable]
    expose = [os.path.realpath(e) for e in expose if os.path.exists(e)]
    if for_other_user:
        mask = [*mask, *closed_ancestors(writable + expose)]
    linux.mount(None, "/", None, MS_REC | MS_PRIVATE)
    if new_proc:
        linux.mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    masks = _outermost(os.path.realpath(m) for m in mask if os.path.isdir(m) and os.path.realpath(m) != "/")
    masks = [m for m in masks if not any(_under(m, w) for w in writable)]
    fds = {m: {p: os.open(p, os.O_PATH) for p in _outermost(q for q in writable + expose if _under(q, m))}
           for m in masks}
    for m in masks:
        _mask(m, fds[m])
        for fd in fds[m].values():
            os.close(fd)
    for w in writable:
        if not any(_under(w, m) for m in masks):
            linux.mount(w, w, None, MS_BIND | MS_REC)
    if shm_bytes and os.path.isdir("/dev/shm"):
        linux.mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, f"size={shm_bytes},mode=1777")
    keep = set(writable) | {"/dev/shm"}
    return _read_only(keep)


def _mask(root: str, binds: dict[str, int]) -> None:
    """Cover `root` with an empty tmpfs and bind back the paths held open in `binds`."""
    linux.mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=755")
    for path, fd in sorted(binds.items()):
        rel = os.path.relpath(path, root)
        target = os.path.join(root, rel)
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.makedirs(target, mode=0o755, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
            open(target, "a").close()
        linux.mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)


def _read_only(keep: set[str]) -> list[str]:
    warnings = []
    for point, opts in mount_points():
        if point in keep or _under(point, "/proc") or "ro" in opts:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for opt in opts:
            flags |= linux.MOUNT_FLAGS.get(opt, 0)
        try:
            linux.mount(None, point, None, flags)
        except OSError as exc:
            if point == "/":
                raise
            warnings.append(f"{point} stays writable: {exc.strerror}")
    return warnings
