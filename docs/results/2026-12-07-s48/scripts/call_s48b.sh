#!/usr/bin/env bash
# Session 48's second call (BUDGET seconds, default 440; saves s48b.tgz to $OUT), on an H100. s48a's
# Nsight Compute profiles (s48a/lp/) have torch.compile's gemv as one row a program on 16 warps at 27
# registers, 91-96 % occupancy, against row_tile_streaming's 4 rows on 8 warps at 40 registers
# (68-70 %) and row_block's 69 registers (23.5 %); its row_sum loads stream with evict_first. So:
#  1. gemv/row_tile_streaming's full-occupancy points (32 registers in the offline sm_90 build)
#     against cuBLAS at the four shapes (tools/harness_probe.py);
#  2. row_sum/adaptive_single_launch at hidden-4k-rows-8192: EVICT_FIRST and 16 warps on a looped row;
#  3. batched_matmul/tma_batched at attn-scores-32h-2048 (0.963x): the half-width store with a fourth
#     stage or 128-deep k steps (STORE_SPLIT, STORE_BLOCK_K);
#  4. linear_bf16/tma_persistent_flat (SMEM_BUDGET 232000) into session 47's llm-inference table
#     (s48a's step ran out of budget: below 130 s no operator starts).
# Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
BUDGET=${BUDGET:-450}; call_begin s48b; LABEL=$(cat .carry/label)
call_env || exit 3
K=suites/kernel-patterns; R=reference_kernels; mkdir -p "$W/k1" "$W/from1"
harness_probe gemv 200 14 $K/gemv $R/gemv/row_tile_streaming.py --shape llama3-8b-qproj-4096x4096 \
  --shape llama3-8b-down-4096x14336 --shape llama3-8b-up-14336x4096 --shape llama3-lm-head-128256x4096 \
  --point BLOCK_N=1,BLOCK_K=2048 --point BLOCK_N=1,BLOCK_K=2048,NUM_WARPS=16 --point BLOCK_N=2,BLOCK_K=1024 \
  --point BLOCK_N=1,BLOCK_K=1024,NUM_WARPS=4
harness_probe rowsum 60 6 $K/row_sum $R/row_sum/adaptive_single_launch.py --shape hidden-4k-rows-8192 \
  --point EVICT_FIRST=1 --point NUM_WARPS=32 --point NUM_WARPS=32,EVICT_FIRST=1 --point TILE=2048,EVICT_FIRST=1
harness_probe bmm 70 6 $K/batched_matmul $R/batched_matmul/tma_batched.py --shape attn-scores-32h-2048 \
  --point STORE_SPLIT=1 --point STORE_SPLIT=1,STORE_STAGES=4 --point STORE_SPLIT=1,STORE_BLOCK_K=128,STORE_STAGES=2
if [ "$(left)" -gt 150 ]; then
  cp docs/results/2026-12-07-s47/s47a/k1/llm-inference.json "$W/from1/"
  OUT="$W/k1" bash tools/h200_suite_bench.sh --budget-s $(( $(left) - 10 )) --label "$LABEL" --jobs 1 --from "$W/from1" \
    --kernels linear_bf16/tma_persistent_flat suites/llm-inference > "$W/k1/run.txt" 2>&1
  echo "llm-inference rc $?"; save
  f="$W/k1/llm-inference.json"
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
  python3 tools/suite_bench.py --render "$f" 2>/dev/null | grep -E "^\| linear_bf16 \| tma_persistent_flat \|" | cut -c1-170
fi
echo "=== wall $(( $(date +%s) - T0 )) s"
