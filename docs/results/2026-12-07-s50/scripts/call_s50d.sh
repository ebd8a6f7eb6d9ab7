#!/usr/bin/env bash
# Session 50's last call (saves s50d.tgz to $OUT; BUDGET seconds, default 220): what the judge's
# phases cost on a GPU since the cross-check batch runs on fresh inputs: `aka eval --json` of one
# rmsnorm kernel over llm-inference's shapes and of transpose_2d/block_ptr_grouped (193.6 s in call
# s50a's suite run, beside two other jobs), each reply's phases printed longest first.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
BUDGET=${BUDGET:-220}; call_begin s50d
call_env || exit 3
for pair in llm-inference/rmsnorm:one_row_registers kernel-patterns/transpose_2d:block_ptr_grouped; do
  op=${pair%%:*}; k=${pair##*:}; name=${op##*/}
  [ "$(left)" -ge 40 ] || { echo "$name skipped: $(left) s left"; continue; }
  s=$(date +%s)
  timeout $(( $(left) - 15 )) python3 -m aka eval "suites/$op" "reference_kernels/$name/$k.py" --device cuda --json \
    > "$W/$name.json" 2> "$W/$name.err"; echo "$name rc $? wall $(( $(date +%s) - s )) s"
  python3 - "$W/$name.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as exc:  # noqa: BLE001
    print("no JSON:", exc); sys.exit(0)
print("status", d.get("status"), "wall_s", d.get("wall_s"))
for k, v in sorted((d.get("phases_s") or {}).items(), key=lambda kv: -kv[1])[:14]:
    print(f"  {k:28s} {v:8.2f} s")
PY
  save
done
echo "=== wall $(( $(date +%s) - T0 )) s"
