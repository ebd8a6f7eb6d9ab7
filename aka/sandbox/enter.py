"""Inside the namespaces `unshare` made for `Sandbox.wrap`: lock the process down, then exec.

    python -m aka.sandbox.enter --workdir DIR [--expose P]... [--mask P]... [--limits JSON]
                                [--privileges drop|keep] [--strict] -- PROGRAM ARGS...
    python -m aka.sandbox.enter --probe --workdir DIR ...     (print what holds, as JSON)

Trusted code: it runs before the program and never imports anything of the candidate's.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys

from aka.sandbox import confine, linux
from aka.sandbox.limits import Limits


def _args(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m aka.sandbox.enter")
    ap.add_argument("--workdir", required=True)
    ap.add_argument("--expose", action="append", default=[])
    ap.add_argument("--mask", action="append", default=[])
    ap.add_argument("--limits", default="{}")
    ap.add_argument("--privileges", choices=("drop", "keep"), default="drop")
    ap.add_argument("--strict", action="store_true")
    ap.add_argument("--probe", action="store_true")
    ap.add_argument("program", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    if args.program[:1] == ["--"]:
        args.program = args.program[1:]
    if not args.probe and not args.program:
        ap.error("no program to run after --")
    return args


def probe(workdir: str, done: dict[str, str], mask: list[str]) -> dict[str, object]:
    """What a process in here can observe of its isolation."""
    try:
        interfaces = sorted(name for _, name in socket.if_nameindex())
    except OSError:
        interfaces = []
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
    root_writable = os.access("/", os.W_OK) and _can_write("/")
    return {
        "network": interfaces in ([], ["lo"]),
        "pid": os.getpid() <= 3 and len(pids) <= 4,
        "mount": not root_writable and _can_write(workdir),
        "home": all(not os.path.isdir(m) or _listing(m) <= _listing_expected(m) for m in mask),
        "privileges": done.get("privileges", "kept"),
        "uid": os.getuid(),
        "capabilities": linux.capabilities(),
        "interfaces": interfaces,
        "visible_pids": len(pids),
        "mount_detail": done.get("mount", ""),
    }


def _can_write(folder: str) -> bool:
    path = os.path.join(folder, f".aka-probe-{os.getpid()}")
    try:
        with open(path, "w") as f:
            f.write("x")
        os.unlink(path)
        return True
    except OSError:
        return False


def _listing(folder: str) -> set[str]:
    try:
        return set(os.listdir(folder))
    except OSError:
        return set()


def _listing_expected(folder: str) -> set[str]:
    """Entries a masked folder may still show: the first components of bound-back paths."""
    from aka.sandbox import fs

    names = set()
    for p in fs.python_paths():
        if p.startswith(folder.rstrip("/") + "/"):
            names.add(os.path.relpath(p, folder).split("/")[0])
    return names


def main(argv: list[str] | None = None) -> None:
    args = _args(sys.argv[1:] if argv is None else argv)
    limits = Limits.from_dict(json.loads(args.limits))
    try:
        linux.die_with_parent()
        done = confine.confine(args.workdir, limits, expose=args.expose, mask=args.mask,
                               privileges=args.privileges, new_mount_ns=args.strict or args.probe)
    except OSError as exc:
        if args.strict or args.probe:
            print(json.dumps({"error": f"{exc}"}) if args.probe else f"aka sandbox: {exc}",
                  file=sys.stdout if args.probe else sys.stderr, flush=True)
            sys.exit(125)
        done = {}
    if args.probe:
        print(json.dumps(probe(args.workdir, done, args.mask)), flush=True)
        return
    try:
        os.execvp(args.program[0], args.program)
    except OSError as exc:
        print(f"aka sandbox: cannot run {args.program[0]}: {exc}", file=sys.stderr, flush=True)
        sys.exit(127)


if __name__ == "__main__":
    main()
