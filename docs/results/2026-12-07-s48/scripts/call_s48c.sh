#!/usr/bin/env bash
# Session 48's short call, for the device time left after refusals (BUDGET seconds, default 200; saves
# s48c.tgz to $OUT): call_s48b.sh's first probe cut to what fits, gemv/row_tile_streaming's
# full-occupancy points against cuBLAS at the two shapes furthest below it (tools/harness_probe.py),
# then, if time is left, the row_sum probe. Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
BUDGET=${BUDGET:-200}; call_begin s48c
call_env || exit 3
K=suites/kernel-patterns; R=reference_kernels
harness_probe gemv $(( $(left) - 15 )) 10 $K/gemv $R/gemv/row_tile_streaming.py --shape llama3-8b-qproj-4096x4096 \
  --shape llama3-8b-down-4096x14336 --point BLOCK_N=1,BLOCK_K=2048 --point BLOCK_N=1,BLOCK_K=2048,NUM_WARPS=16 \
  --point BLOCK_N=2,BLOCK_K=1024
harness_probe rowsum 50 6 $K/row_sum $R/row_sum/adaptive_single_launch.py --shape hidden-4k-rows-8192 \
  --point EVICT_FIRST=1 --point NUM_WARPS=32,EVICT_FIRST=1
echo "=== wall $(( $(date +%s) - T0 )) s"
