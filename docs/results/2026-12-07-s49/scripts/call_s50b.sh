#!/usr/bin/env bash
# The next session's second call, on either card (saves s50b.tgz to $OUT; BUDGET seconds, default
# 560): the rest of session 49's offline sm_90 screen as probes, each point judged and timed by the
# harness against the operator's bar interleaved (tools/harness_probe.py), at the shapes the H200
# tables have below their bar:
#  - conv1d_depthwise_causal chunk-64x4096x16: the short-row path's first timing, and half or twice
#    the programs;
#  - scatter_add_rows moe-unpermute-decode-64-top8: one exact wave (BLOCK_D 1024), or smaller programs;
#  - max_pool_1d seq-64x512x1024-k4s4: two 16-byte loads in flight a thread;
#  - reverse_rows bidir-16384x1024 and long-rows-64x131072: two or four 16-byte loads a thread;
#  - row_sum hidden-4k-rows-8192: EVICT_FIRST and 32 warps (session 48's points);
#  - cumsum_rows/associative_scan_tile short-rows-16k (0.973x on the H200): the same 2-rows-a-warp
#    layout on 8 or 2 warps (32 registers, full occupancy, no barrier in the loop for sm_90), or 16
#    rows on 4 warps (48 registers, 62.5 %); whole 256-column steps were left out: their scan crosses
#    warps (5 barriers and 10 shared-memory accesses a trip);
#  - cumsum_rows/reduce_then_scan at its defaults where a row is one chunk (session 49 skips pass 1
#    there: one read instead of two);
#  - then session 48's gemv one-row points with what is left.
# Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
BUDGET=${BUDGET:-560}; call_begin s50b
call_env || exit 3
K=suites/kernel-patterns; R=reference_kernels
harness_probe conv1d 70 6 $K/conv1d_depthwise_causal $R/conv1d_depthwise_causal/tap_loop_tile.py \
  --shape chunk-64x4096x16 --point SHORT_TILE=2048,SHORT_WARPS=8 --point SHORT_TILE=512,SHORT_WARPS=2
harness_probe scatter 70 6 $K/scatter_add_rows $R/scatter_add_rows/atomic_add.py \
  --shape moe-unpermute-decode-64-top8 --point BLOCK_D=1024 --point BLOCK_D=256,NUM_WARPS=2
harness_probe maxpool 60 5 $K/max_pool_1d $R/max_pool_1d/contiguous_window_tile.py \
  --shape seq-64x512x1024-k4s4 --point AUTO=0,BLOCK=256,NUM_WARPS=2
harness_probe reverse 90 10 $K/reverse_rows $R/reverse_rows/flat_mirrored.py --shape bidir-16384x1024 \
  --shape long-rows-64x131072 --point AUTO=0,BLOCK=2048,NUM_WARPS=4 --point AUTO=0,BLOCK=1024,NUM_WARPS=4 \
  --point AUTO=0,BLOCK=4096,NUM_WARPS=8
harness_probe rowsum 60 6 $K/row_sum $R/row_sum/adaptive_single_launch.py --shape hidden-4k-rows-8192 \
  --point EVICT_FIRST=1 --point NUM_WARPS=32 --point NUM_WARPS=32,EVICT_FIRST=1
harness_probe cumsum 60 6 $K/cumsum_rows $R/cumsum_rows/associative_scan_tile.py --shape short-rows-16k \
  --point SHORT_ROWS=16,NUM_WARPS=8 --point SHORT_ROWS=4,NUM_WARPS=2 --point SHORT_ROWS=16
harness_probe rts 50 4 $K/cumsum_rows $R/cumsum_rows/reduce_then_scan.py --shape rows-4k-4096 --shape short-rows-16k
harness_probe gemv 170 14 $K/gemv $R/gemv/row_tile_streaming.py --shape llama3-8b-qproj-4096x4096 \
  --shape llama3-8b-down-4096x14336 --shape llama3-8b-up-14336x4096 --shape llama3-lm-head-128256x4096 \
  --point BLOCK_N=1,BLOCK_K=2048 --point BLOCK_N=1,BLOCK_K=2048,NUM_WARPS=16 --point BLOCK_N=2,BLOCK_K=1024
echo "=== wall $(( $(date +%s) - T0 )) s"
