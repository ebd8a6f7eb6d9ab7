#!/usr/bin/env bash
# session 44's first call (written in session 43, amended in 44), whichever card comes; BUDGET seconds (default 575).
# Saves s44a.tgz to $OUT after each step. Session 43's call_s43a already ran its GPU correctness tests and four probes.
#  0. the graph timing's span grid (tools/span_grid_probe.py) and rmsnorm/one_row_registers' new points (GPU tests);
#  1. H200: kernel-patterns continued from session 43's table (--from .carry/h200: transpose_2d, vector_norm_l2,
#     sort_rows' and top_k_rows' remaining kernels);
#  2. the changed kernels measured into this card's tables (--kernels; H100: .carry/h100-full);
#  3. rmsnorm/one_row_registers' STATIC_N and W_FIRST at llama3-70b-prefill-4k (issue 9's 0.97x shape);
#  4. with the time left, the harness probes session 43's call did not reach: reverse_rows/flat_mirrored's VEC_FLIP
#     (bidir shapes), cumsum_rows' short-row tiles, row_sum's tiles, linear_bf16/tma_persistent_flat's points.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s44a; mkdir -p "$W/k" "$W/k2" "$W/from" "$W/probe"; LABEL=$(cat .carry/label)
NEWK="conv1d_depthwise_causal/tap_loop_tile,histogram/private_slab_atomics,matmul_int4_grouped/scale_group_partials,scatter_add_rows/onehot_tensor_core"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; mkdir -p "$W/tests"; echo "$card" > "$W/tests/card.txt"
export PYTHONPATH="$PWD"; carried_wheels || exit 3
h200=0; case "$card" in *H200*) h200=1 ;; esac
timeout 60 python3 tools/span_grid_probe.py --out "$W/probe/spans.json" > "$W/probe/spans.txt" 2>&1; echo "spans rc $?"
tail -n 7 "$W/probe/spans.txt" | cut -c1-160
bash tools/device_kernel_tests.sh "$W/tests" "one_row_registers and rmsnorm and not fused_add" \
  tests/reference_kernels/test_one_row_registers_points.py > "$W/tests/run.txt" 2>&1
echo "tests rc $?"; tail -n 3 "$W/tests/run.txt"; save
if [ "$h200" = 1 ]; then cp .carry/h200/*.json "$W/from/"; else cp .carry/h100-full/*.json "$W/from/"; fi
if [ "$h200" = 1 ] && [ -z "${PROBES_ONLY:-}" ] && [ "$(left)" -ge 300 ]; then
  OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) - 150 < 200 ? $(left) - 150 : 200 ))" --label "$LABEL" --jobs 3 \
    --from "$W/from" suites/kernel-patterns > "$W/k/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/k/run.txt"
  [ -f "$W/k/kernel-patterns.json" ] && cp "$W/k/kernel-patterns.json" "$W/from/"; save
fi
if [ -z "${PROBES_ONLY:-}" ] && [ "$(left)" -ge 130 ]; then
  OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) - 100 < 170 ? $(left) - 100 : 170 ))" --label "$LABEL" --jobs 3 \
    --from "$W/from" --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?"; save
fi
harness_probe rms 100 8 suites/llm-inference/rmsnorm reference_kernels/rmsnorm/one_row_registers.py \
  --shape llama3-70b-prefill-4k --point NUM_WARPS=16,REREAD=1 --point NUM_WARPS=16,REREAD=1,STATIC_N=1 \
  --point NUM_WARPS=16,REREAD=1,STATIC_N=1,W_FIRST=1 --point NUM_WARPS=16,STATIC_N=1 --point NUM_WARPS=16,STATIC_N=1,W_FIRST=1 \
  --point NUM_WARPS=8,REREAD=1,STATIC_N=1
harness_probe rev 100 10 suites/kernel-patterns/reverse_rows reference_kernels/reverse_rows/flat_mirrored.py \
  --shape bidir-6144x4096 --shape bidir-16384x1024 --point default --point VEC_FLIP=1 \
  --point VEC_FLIP=1,AUTO=0,BLOCK=1024,NUM_WARPS=4 --point VEC_FLIP=1,AUTO=0,BLOCK=2048,NUM_WARPS=8
harness_probe cumsum 80 6 suites/kernel-patterns/cumsum_rows reference_kernels/cumsum_rows/associative_scan_tile.py \
  --shape short-rows-16k --point default --point SHORT_BLOCK_N=256,SHORT_ROWS=4 --point SHORT_BLOCK_N=256,SHORT_ROWS=8 \
  --point SHORT_BLOCK_N=256,SHORT_ROWS=16,NUM_WARPS=8 --point SHORT_ROWS=16
harness_probe rowsum 80 6 suites/kernel-patterns/row_sum reference_kernels/row_sum/adaptive_single_launch.py \
  --shape hidden-4k-rows-8192 --point default --point NUM_WARPS=8 --point TILE=8192,MAX_BLOCK_N=8192 \
  --point TILE=8192,MAX_BLOCK_N=8192,NUM_WARPS=8 --point TILE=2048
harness_probe linear 90 6 suites/llm-inference/linear_bf16 reference_kernels/linear_bf16/tma_persistent_flat.py \
  --shape llama3-8b-o_proj-prefill-4k --point default --point GROUP_M=16 --point GROUP_M=4 --point NUM_STAGES=3 \
  --point EPILOGUE_SUBTILE=false
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W/k/kernel-patterns.json" "$W/k2/kernel-patterns.json"; do [ -f "$f" ] && python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null \
  | grep -E "^Suite|^Operators at|^\| (conv1d_depthwise_causal|histogram|matmul_int4_grouped|scatter_add_rows) \| (tap_loop_tile|private_slab_atomics|scale_group_partials|onehot_tensor_core|torch)" | cut -c1-200; done
