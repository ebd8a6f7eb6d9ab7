#!/usr/bin/env bash
# session 36 probe call: parameter points of the H100 losers by do_bench (ranking only, not the harness)
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/wp; rm -rf "$W"; mkdir -p "$W"; T0=$(date +%s)
export PYTHONPATH=$PWD OUT="$W"
echo "card: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" | tee "$W/card.txt"
KP=suites/kernel-patterns; RK=reference_kernels
p() { timeout "${PS:-100}" python3 .carry/param_probe.py "$@" 2>&1 | tee -a "$W/probe.txt" | grep -v "^\s*$" | cut -c1-150; }
p $KP/sort_rows $RK/sort_rows/segment_sort_merge_rank.py candidates-4096x1024,decode-64x2048,odd-3x1500 \
  'SEG=256;SEG=512;SEG=512,SORT_WARPS=2;SEG=1024;SEG=1024,SORT_WARPS=2;SEG=1024,SORT_WARPS=4;SEG=128;SEG=2048;SEG=512,MERGE_BLOCK=512' seg
p $KP/row_sum $RK/row_sum/adaptive_single_launch.py short-rows-64k,hidden-4k-rows-8192 'TILE=4096;TILE=1024;TILE=2048;TILE=8192;NUM_WARPS=8;NUM_WARPS=4' rowsum
p $KP/vector_norm_l2 $RK/vector_norm_l2/adaptive_single_launch.py heads-131072x128,embeddings-16k-4096 'TILE=4096;TILE=1024;TILE=2048;TILE=8192;NUM_WARPS=8;NUM_WARPS=4' vnorm
tar czf "$FINAL/p.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
