"""How big a device call's copy of this working tree is, before the call: the device tool refuses a
tree over 64 MiB (tracked files, untracked files git does not ignore, and the carried paths), and a
refusal comes only after the call is made.

  python3 tools/device_copy_size.py [--carry .carry --carry .whl] [--top 10]

Counts each file as a tar archive stores it (a 512-byte header, the data padded to 512 bytes), the
shape of a copy of many small files. The tool's own count is not published; this one tells apart
session 47's two copies: 65.16 MB of data in 1,798 files (66.54 MB counted this way) was taken, and
66.33 MB in 1,825 files (67.74 MB this way) was refused, where the data alone was under the limit. Prints the total against the
limit and the largest contributors; exit status 1 over the limit, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

LIMIT = 64 * 1024 * 1024
BLOCK = 512


def tar_bytes(size: int) -> int:
    """A file's bytes in a tar archive: one header block and its data rounded up to whole blocks."""
    return BLOCK + -(-size // BLOCK) * BLOCK


def tree_files(root: Path) -> list[Path]:
    """Tracked files that exist, and untracked files git does not ignore."""
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, check=True).stdout.decode()
    return [root / p for p in out.split("\0") if p and (root / p).is_file()]


def carried_files(root: Path, paths: list[str]) -> list[Path]:
    files = []
    for p in paths:
        where = root / p
        if not where.exists():
            raise SystemExit(f"device_copy_size: --carry {p}: no such path under {root}")
        files += [where] if where.is_file() else sorted(f for f in where.rglob("*") if f.is_file())
    return files


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--carry", action="append", default=[], help="an ignored path the call carries (repeatable)")
    ap.add_argument("--top", type=int, default=10, help="how many of the largest files to list")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = ap.parse_args(argv)
    files = tree_files(args.root) + carried_files(args.root, args.carry)
    sizes = {f: f.stat().st_size for f in files}
    total = sum(tar_bytes(s) for s in sizes.values())
    data = sum(sizes.values())
    verdict = "over" if total > LIMIT else "under"
    print(f"{len(files)} files, {data / 1e6:.2f} MB of data, {total / 1e6:.2f} MB as a copy: "
          f"{verdict} the {LIMIT / 1e6:.2f} MB (64 MiB) limit by {abs(LIMIT - total) / 1e6:.2f} MB")
    for f, s in sorted(sizes.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {s / 1e6:7.2f} MB  {f.relative_to(args.root)}")
    return 1 if total > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
