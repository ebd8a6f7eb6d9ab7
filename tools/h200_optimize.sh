#!/usr/bin/env bash
# On a lent H200 (device tool): install the carried wheels, calibrate, then run the tuner over the
# given operators with tools/optimize_bench.py (its tables: per shape, per session, where the time
# went by loop step and by evaluation phase).
#   bash tools/h200_optimize.sh ITERATIONS OP... [optimize_bench options, e.g. --time-limit 2]
# The device returns at most 8 files a call, so $OUT gets five: gpu.txt, calibration.json,
# optimize_bench.json, optimize_bench.md and details.tgz (each operator's stderr and every session
# folder, for `aka replay` and `--rerun` elsewhere).
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD"
. tools/device_site.sh
carried_wheels || exit 3       # once per machine: a warm machine's later calls skip pip
export PYTHONUNBUFFERED=1 AKA_CACHE_DIR=/tmp/aka-cache
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
: "${OUT:?set OUT to the folder for the results}"
iters="$1"; shift
stage=$(mktemp -d "${TMPDIR:-/tmp}/aka-optimize-XXXXXX")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
git rev-parse HEAD >> "$OUT/gpu.txt" 2>/dev/null
python3 -m aka doctor --calibrate --json > "$OUT/calibration.json" 2> "$stage/calibration.log" || tail -5 "$stage/calibration.log"
python3 tools/optimize_bench.py "$@" --iterations "$iters" --out "$stage" --sessions-dir "$stage/sessions"
rc=$?
cp "$stage/optimize_bench.json" "$stage/optimize_bench.md" "$OUT/" 2>/dev/null
tar czf "$OUT/details.tgz" -C "$stage" --exclude optimize_bench.json --exclude optimize_bench.md .
exit $rc
