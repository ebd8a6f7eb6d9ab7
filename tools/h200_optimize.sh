#!/usr/bin/env bash
# On a lent H200 (device tool): install the carried wheels, calibrate, then run the tuner over the
# given operators with tools/optimize_bench.py. Results land in $OUT.
#   bash tools/h200_optimize.sh ITERATIONS OP...
set -uo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 3
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1 AKA_CACHE_DIR=/tmp/aka-cache
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
iters="$1"; shift
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
python3 -m aka doctor --calibrate --json > "$OUT/calibration.json" 2> "$OUT/calibration.log" || tail -5 "$OUT/calibration.log"
python3 tools/optimize_bench.py "$@" --iterations "$iters" --out "$OUT" --sessions-dir /tmp/sessions
rc=$?
tar czf "$OUT/sessions.tgz" -C /tmp sessions 2>/dev/null
exit $rc
