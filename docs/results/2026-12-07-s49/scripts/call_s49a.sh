#!/usr/bin/env bash
# Session 49's first call (saves s49a.tgz to $OUT). It branches on the card the device tool gives:
#  - an H200: issue 9's tuner over its six operators (MIN minutes each, default 0.9) with the code of
#    today, into $W/opt; no H200 run of the six exists since session 40 (session 43 ran two of them);
#  - an H100: gemv_transposed/split_k_fused_finalize against cuBLAS timed interleaved at its two
#    table misses (s48a's Nsight Compute had it level on the device at gpt2-xl, where the table, whose
#    baselines came from session 45's run, has 0.93x: an interleaved ratio settles which), then
#    session 48's probes with what is left (call_s48b.sh: gemv full-occupancy points, row_sum
#    EVICT_FIRST and 32 warps, the batched_matmul store path, linear_bf16's fourth stage into
#    session 47's table). Two archives: s49a.tgz and s48b.tgz.
# Carry .carry (this script, call_s48b.sh, call_s45a.sh, label) and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
case "$card" in
  *H200*)
    BUDGET=${BUDGET:-560}; call_begin s49a; call_env || exit 3
    tuner_step "$W/opt" "${MIN:-0.9}" rmsnorm layernorm rotary_embedding_neox fused_add_rmsnorm silu_and_mul softmax
    tail -n 60 "$W/opt/optimize_bench.md" 2>/dev/null | cut -c1-200
    echo "=== wall $(( $(date +%s) - T0 )) s" ;;
  *H100*)
    BUDGET=${BUDGET:-560}; call_begin s49a; call_env || exit 3
    harness_probe gemvt 80 8 suites/kernel-patterns/gemv_transposed \
      reference_kernels/gemv_transposed/split_k_fused_finalize.py --shape gpt2-xl-mlp-up-1600x6400 \
      --shape llama3-8b-up-4096x14336 --point CHUNK_K=256 --point BLOCK_K=32
    BUDGET=$(( $(left) - 5 )) bash .carry/call_s48b.sh
    echo "=== wall $(( $(date +%s) - T0 )) s" ;;
  *) echo "card: '${card:-none}': neither an H200 nor an H100"; exit 4 ;;
esac
