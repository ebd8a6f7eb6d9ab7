"""Compiled-kernel (Triton) caches of candidates' processes.

Every candidate's process compiles into its own folder. It starts from a copy of the judges' cache
(the timer's and the proof's kernels, compiled by trusted processes) and, for code aka ships (the
tuner's reference kernels and its dispatchers, `jobs.CandidateSource.shipped`), from the session's
cache of shipped kernels as well: the incumbent re-run in a comparison, or a dispatcher built from
configurations already tried, then compiles nothing (kernels, and the host launchers Triton builds
for them with the C compiler). What such a process compiled is published back
into that cache by the judge once the process has ended. A model's, a user's or a replayed
candidate never reads or writes it: a cache entry is a binary keyed by the source's hash, and a
hostile process could plant one under a key another candidate will look up.
"""

from __future__ import annotations

import json
import os
import re
import shutil

SHIPPED = "shipped-kernels"
"""Folder of the session's shipped-kernel cache, under the worker's jobs root."""


def own_folder(workdir: str) -> str:
    """Where a candidate's process compiles (its TRITON_CACHE_DIR)."""
    return os.path.join(workdir, ".triton", "cache")


SHARED_ENV = "AKA_SHIPPED_KERNELS"
"""Names the shipped-kernel cache of worker pools that serve one session together (`aka optimize
--parallel`): the first pool's, so every pool's candidates find what the others compiled."""


def shipped_folder() -> str | None:
    """The shipped-kernel cache of this worker (None outside a worker's job)."""
    if os.environ.get(SHARED_ENV):
        return os.environ[SHARED_ENV]
    root = os.environ.get("AKA_JOBS_ROOT", "")
    return os.path.join(root, SHIPPED) if root else None


def seed(workdir: str, shipped: bool, source: str | None = None) -> frozenset[str]:
    """Fill a candidate's cache folder before its process starts; the entries it then holds.

    The judges' cache is copied (filtered to what a launch needs, `_not_runtime`), so nothing the
    process writes reaches another's. For shipped code the session's shipped cache is linked, an
    entry at a time, not copied: it grows by every configuration a session compiles ahead, and
    copying it into every candidate's folder made a late candidate's start 0.94 s against 0.16 s
    for an early one (docs/benchmarks.md). The candidate's process sees the linked entries through
    its read-only filesystem; where that lock-down is missing, `secure_links`, run in that process
    before any candidate code, turns each link it could write through into a copy. With the
    candidate's SOURCE, only entries of kernels it defines (and host launchers) are linked."""
    judges = os.environ.get("TRITON_CACHE_DIR", "")
    if judges and os.path.isdir(judges):
        shutil.copytree(judges, own_folder(workdir), dirs_exist_ok=True, symlinks=False, ignore=_not_runtime)
        relocate(own_folder(workdir))
    folder = shipped_folder() if shipped else None
    if folder and os.path.isdir(folder):
        _link_entries(folder, own_folder(workdir), _not_runtime if source is None else _only_kernels_of(source))
    return entries(workdir)


def _link_entries(folder: str, mine: str, ignore) -> int:
    """Link each entry of FOLDER that IGNORE keeps (and that is complete) into MINE, unless MINE
    has one of that name; the number linked."""
    os.makedirs(mine, exist_ok=True)
    children = os.listdir(folder)
    skip = ignore(folder, children)
    linked = 0
    for name in children:
        target = os.path.join(folder, name)
        if name in skip or os.path.lexists(os.path.join(mine, name)) or not os.path.isdir(target):
            continue
        os.symlink(target, os.path.join(mine, name))
        linked += 1
    return linked


def secure_links(mine: str) -> tuple[int, int]:
    """In the candidate's process, before any candidate code runs: every linked entry of its cache
    folder it could write through (no read-only filesystem) is replaced by a copy, and every one it
    cannot read (another user's folder) is removed, so Triton compiles that kernel afresh into its
    own folder rather than failing to write into the link. Returns (copied, removed)."""
    copied = removed = 0
    try:
        names = os.listdir(mine)
    except OSError:
        return 0, 0
    for name in names:
        link = os.path.join(mine, name)
        if not os.path.islink(link):
            continue
        target = os.path.realpath(link)
        if not os.access(target, os.R_OK | os.X_OK):
            os.unlink(link)
            removed += 1
        elif os.access(target, os.W_OK):
            staging = f"{link}.tmp{os.getpid()}"
            os.unlink(link)                       # first: whatever happens next, no writable link is left
            try:
                shutil.copytree(target, staging, symlinks=False, ignore=_not_runtime)
                _point_groups(staging, link)
                os.rename(staging, link)
                copied += 1
            except OSError:                       # no copy: the kernel compiles afresh in its own folder
                shutil.rmtree(staging, ignore_errors=True)
                removed += 1
    return copied, removed


def defined_names(source: str) -> frozenset[str]:
    """Every function name the source defines (its Triton kernels among them)."""
    return frozenset(re.findall(r"^[ \t]*def[ \t]+(\w+)[ \t]*\(", source, flags=re.MULTILINE))


def _only_kernels_of(source: str):
    """copytree's filter for the shipped cache: `_not_runtime`, and at the top level every entry of
    a kernel the source does not define (an entry names its kernel in its metadata file,
    `<kernel>.json`; a host launcher's entry names none and is kept)."""
    names = defined_names(source)

    def ignore(folder: str, children: list[str]) -> set[str]:
        skip = _not_runtime(folder, children)
        for child in children:
            path = os.path.join(folder, child)
            if child in skip or not os.path.isdir(path):
                continue
            try:
                kernels = {n[:-5] for n in os.listdir(path) if n.endswith(".json") and not n.startswith("__grp__")}
            except OSError:
                continue
            if kernels and not kernels & names:
                skip.add(child)
        return skip
    return ignore


RUNTIME = (".json", ".cubin", ".hsaco", ".so")
"""What a process needs of a cache entry to launch its kernel without compiling: the group and
metadata files, the binary (NVIDIA, AMD) and host modules. The intermediate code (.ttir, .ttgir,
.llir, .ptx, .source: about four fifths of an entry) is not copied; Triton's lookup leaves out a
group's missing files and loads the binary alone."""


def _not_runtime(folder: str, names: list[str]) -> set[str]:
    """copytree's filter for seeding: drop locks, unfinished writes and intermediate code."""
    return {n for n in names if _unfinished(n) or n.endswith(".lock")
            or (os.path.isfile(os.path.join(folder, n)) and not n.endswith(RUNTIME))}


def _unfinished(name: str) -> bool:
    """A write still under way or cut off: aka's staging copies (`.tmp<pid>`) and Triton's (a
    `tmp.pid_...` folder inside the entry)."""
    return ".tmp" in name or name.startswith("tmp.")


def _point_groups(entry: str, at: str) -> int:
    """Rewrite the group files of the cache entry folder ENTRY to list their files under AT (where
    the entry will be found); the number rewritten."""
    rewritten = 0
    for name in os.listdir(entry):
        if not (name.startswith("__grp__") and name.endswith(".json")):
            continue
        path = os.path.join(entry, name)
        try:
            with open(path) as f:
                children = json.load(f)["child_paths"]
            moved = {c: os.path.join(at, os.path.basename(p)) for c, p in children.items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue                                      # not Triton's: left as it is
        if moved != children:
            with open(path + ".relocated", "w") as f:
                json.dump({"child_paths": moved}, f)
            os.replace(path + ".relocated", path)
            rewritten += 1
    return rewritten


def relocate(cache: str) -> int:
    """Point each entry's group file at the entry's own files; the number rewritten. Triton lists
    a kernel's files in its group file by absolute path in the cache that compiled it. A copy
    read anywhere else (a warming process's folder, an earlier candidate's, both deleted by then)
    finds none of them: Triton counts that a miss and compiles the kernel again, into the same
    entry."""
    moved_groups = 0
    for entry in os.scandir(cache):
        if entry.is_dir(follow_symlinks=False):                # a linked entry is the shipped cache's own
            moved_groups += _point_groups(entry.path, entry.path)
    return moved_groups


def entries(workdir: str) -> frozenset[str]:
    """The entries (compiled kernels) in a candidate's cache folder."""
    mine = own_folder(workdir)
    return frozenset(os.listdir(mine)) if os.path.isdir(mine) else frozenset()


def written_since(workdir: str, since: float) -> int:
    """How many entries of a candidate's cache folder its process wrote after `since` (the end of
    seeding): new entries, and seeded ones it compiled again because it could not use them."""
    mine = own_folder(workdir)
    if not os.path.isdir(mine):
        return 0
    count = 0
    for entry in os.scandir(mine):
        if entry.is_dir(follow_symlinks=False):
            try:
                if any(f.stat(follow_symlinks=False).st_mtime > since for f in os.scandir(entry.path)):
                    count += 1
            except OSError:
                continue
    return count


def publish(workdir: str) -> int:
    """Add what a shipped candidate's (ended) process compiled to the shipped-kernel cache; the
    number of entries added."""
    target = shipped_folder()
    return publish_folder(own_folder(workdir), target) if target else 0


def publish_folder(mine: str, target: str) -> int:
    """Add the complete entries of the cache folder MINE that TARGET lacks; the number added. An
    entry is complete when Triton wrote its group file (last); each lands whole (copied aside,
    then renamed), so a concurrent reader never sees half of one."""
    if not os.path.isdir(mine):
        return 0
    os.makedirs(target, exist_ok=True)
    added = 0
    for entry in os.scandir(mine):
        final = os.path.join(target, entry.name)
        if not entry.is_dir(follow_symlinks=False) or os.path.exists(final) or not _complete(entry.path):
            continue
        staging = f"{final}.tmp{os.getpid()}"
        try:
            shutil.copytree(entry.path, staging, symlinks=True)
            _point_groups(staging, final)
            os.rename(staging, final)
            added += 1
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
    return added


def _complete(folder: str) -> bool:
    """A kernel entry once Triton wrote its group file (last); a host module entry (the launcher
    Triton builds with the C compiler for each kernel signature, or its driver utilities: about a
    second each) once it holds only the finished module. Triton writes a file through a `tmp.*`
    folder inside the entry, so an interrupted write fails both tests. Triton writes plain files
    only: an entry holding a link or a folder was not written by it and is never shared."""
    items = list(os.scandir(folder))
    names = [i.name for i in items]
    if not names or any(_unfinished(n) for n in names) or not all(i.is_file(follow_symlinks=False) for i in items):
        return False
    return any(n.startswith("__grp__") for n in names) or all(n.endswith(".so") for n in names)
