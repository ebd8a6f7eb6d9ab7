"""Instruction, shuffle and barrier counts of PTX files written by tools/offline_compile.py --ptx-dir.
  python3 tools/offline_compile.py reference_kernels/row_max_argmax/{adaptive_single_launch,packed_key_tiles}.py \
      --shapes experts-64k-rows-64 --ptx-dir PTX
  python3 ptxcount.py PTX/*.ptx"""
import re, sys
from pathlib import Path

for f in sys.argv[1:]:
    lines = [l.strip() for l in Path(f).read_text().splitlines()]
    ins = [l for l in lines if l and not l.startswith(("//", ".", "$", "{", "}", ")", "(")) and re.match(r"^(@!?%\w+\s+)?[a-z]", l)]
    count = lambda s: sum(s in l for l in ins)  # noqa: E731
    print(f"{Path(f).name}: instructions {len(ins)}, shfl {count('shfl')}, ld.global {count('ld.global')}, "
          f"bar.sync {count('bar.sync')}, st.shared {count('st.shared')}")
