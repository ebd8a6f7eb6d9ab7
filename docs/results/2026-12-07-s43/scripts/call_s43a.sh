#!/usr/bin/env bash
# session 43's first call (session 42's, plus scatter_add_rows/onehot_tensor_core), whichever card comes; BUDGET seconds (default 575). Saves s43a.tgz to $OUT after each step.
# PROBES_ONLY=1: steps 1 and 4 (a second call, after one that ran 2 and 3).
#  1. GPU correctness: session 40's three changed kernels, and this session's four (the tf32x2 and VEC_FLIP tests too);
#  2. H200: kernel-patterns' last five operators into session 40's H200 results (--from .carry/h200);
#  3. the three changed kernels measured into this card's results (--kernels; H100: .carry/h100-full);
#  4. with the time left, the harness as the probe: tma_batched's store-bound points at attn-scores-32h-2048 (0.918x cuBLAS on the H200),
#     gemv_transposed/split_k_fused_finalize's points at its two shapes below cuBLAS, rmsnorm/one_row_registers'
#     16 warps, eviction hints and Inductor's second read at llama3-70b-prefill-4k (0.97x torch.compile), and
#     reverse_rows/flat_mirrored's vector loads (VEC_FLIP) at its two bidir shapes (0.98-0.99x), cumsum_rows'
#     short-row tiles at short-rows-16k (0.97x), row_sum's whole-row and looped tiles at hidden-4k-rows-8192 (0.985x),
#     linear_bf16/tma_persistent_flat's declared points at llama3-8b-o_proj-prefill-4k (0.943x cuBLAS).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s43a; mkdir -p "$W/k" "$W/k2" "$W/from" "$W/probe"; LABEL=$(cat .carry/label)
NEWK="conv1d_depthwise_causal/tap_loop_tile,histogram/private_slab_atomics,matmul_int4_grouped/scale_group_partials,scatter_add_rows/onehot_tensor_core"
bash tools/device_kernel_tests.sh "$W/tests" "tap_loop_tile or private_slab_atomics or scale_group_partials or tma_batched or (one_row_registers and rmsnorm and not fused_add) or flat_mirrored or onehot_tensor_core" \
  tests/reference_kernels/test_int4_tf32x2_split.py tests/reference_kernels/test_reverse_rows_vec_flip.py \
  tests/reference_kernels/test_one_row_registers_points.py tests/reference_kernels/test_scatter_onehot.py; save
export PYTHONPATH="$PWD"; carried_wheels   # installed by the tests step: the stamp skips pip
card=$(cat "$W/tests/card.txt"); h200=0; case "$card" in *H200*) h200=1 ;; esac
if [ "$h200" = 1 ]; then cp .carry/h200/*.json "$W/from/"; else cp .carry/h100-full/*.json "$W/from/"; fi
if [ "$h200" = 1 ] && [ -z "${PROBES_ONLY:-}" ] && [ "$(left)" -ge 300 ]; then
  OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) - 100 < 230 ? $(left) - 100 : 230 ))" --label "$LABEL" --jobs 3 \
    --from "$W/from" suites/kernel-patterns > "$W/k/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/k/run.txt"
  [ -f "$W/k/kernel-patterns.json" ] && cp "$W/k/kernel-patterns.json" "$W/from/"; save
fi
if [ -z "${PROBES_ONLY:-}" ] && [ "$(left)" -ge 130 ]; then
  OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) < 200 ? $(left) : 200 ))" --label "$LABEL" --jobs 3 \
    --from "$W/from" --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?"; save
fi
# probe NAME TIMEOUT TAIL OPDIR KERNEL ARGS...: one harness probe, if TIMEOUT + 10 s are left; its table's last TAIL lines
probe() {
  local name="$1" t="$2" n="$3"; shift 3
  [ "$(left)" -ge $(( t + 10 )) ] || return 0
  timeout "$t" python3 tools/harness_probe.py "$@" --out "$W/probe/$name.json" > "$W/probe/$name.txt" 2>&1
  echo "probe $name rc $?"; tail -n "$n" "$W/probe/$name.txt" | cut -c1-160; save
}
probe scatter 90 8 suites/kernel-patterns/scatter_add_rows reference_kernels/scatter_add_rows/onehot_tensor_core.py \
  --shape moe-unpermute-decode-64-top8 --shape buckets-8192-to-32 --point default --point BLOCK_D=64 --point PROGRAMS_PER_SM=2 \
  --point BLOCK_D=64,PROGRAMS_PER_SM=4 --point NUM_STAGES=4
probe bmm 150 8 suites/kernel-patterns/batched_matmul reference_kernels/batched_matmul/tma_batched.py \
  --shape attn-scores-32h-2048 --point default --point STORE_TILE_N=128,STORE_PER_SM=2,STORE_STAGES=2 \
  --point STORE_TILE_N=128,STORE_PER_SM=2,STORE_STAGES=2,STORE_WARPS=4 --point STORE_TILE_N=128,STORE_STAGES=2 \
  --point STORE_STAGES=2
probe gemvt 120 20 suites/kernel-patterns/gemv_transposed reference_kernels/gemv_transposed/split_k_fused_finalize.py \
  --shape gpt2-xl-mlp-up-1600x6400 --shape llama3-8b-up-4096x14336 --point default --point SMALL_PROGRAMS_PER_SM=3 \
  --point SMALL_PROGRAMS_PER_SM=4 --point SMALL_BLOCK_N=128 --point SMALL_NUM_WARPS=4 --point CHUNK_K=1024 --point CHUNK_K=256 \
  --point BLOCK_N=256,NUM_WARPS=8 --point BLOCK_K=32
probe rms 100 8 suites/llm-inference/rmsnorm reference_kernels/rmsnorm/one_row_registers.py \
  --shape llama3-70b-prefill-4k --point default --point NUM_WARPS=16 --point NUM_WARPS=16,REREAD=1 \
  --point NUM_WARPS=16,EVICT_HINTS=1 --point REREAD=1 --point EVICT_HINTS=1
probe rev 100 10 suites/kernel-patterns/reverse_rows reference_kernels/reverse_rows/flat_mirrored.py \
  --shape bidir-6144x4096 --shape bidir-16384x1024 --point default --point VEC_FLIP=1 \
  --point VEC_FLIP=1,AUTO=0,BLOCK=1024,NUM_WARPS=4 --point VEC_FLIP=1,AUTO=0,BLOCK=2048,NUM_WARPS=8
probe cumsum 80 6 suites/kernel-patterns/cumsum_rows reference_kernels/cumsum_rows/associative_scan_tile.py \
  --shape short-rows-16k --point default --point SHORT_BLOCK_N=256,SHORT_ROWS=4 --point SHORT_BLOCK_N=256,SHORT_ROWS=8 \
  --point SHORT_BLOCK_N=256,SHORT_ROWS=16,NUM_WARPS=8 --point SHORT_ROWS=16
probe rowsum 80 6 suites/kernel-patterns/row_sum reference_kernels/row_sum/adaptive_single_launch.py \
  --shape hidden-4k-rows-8192 --point default --point NUM_WARPS=8 --point TILE=8192,MAX_BLOCK_N=8192 \
  --point TILE=8192,MAX_BLOCK_N=8192,NUM_WARPS=8 --point TILE=2048
probe linear 90 6 suites/llm-inference/linear_bf16 reference_kernels/linear_bf16/tma_persistent_flat.py \
  --shape llama3-8b-o_proj-prefill-4k --point default --point GROUP_M=16 --point GROUP_M=4 --point NUM_STAGES=3 \
  --point EPILOGUE_SUBTILE=false
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W/k/kernel-patterns.json" "$W/k2/kernel-patterns.json"; do [ -f "$f" ] && python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null \
  | grep -E "^Suite|^Operators at|^\| (conv1d_depthwise_causal|histogram|matmul_int4_grouped|scatter_add_rows) \| (tap_loop_tile|private_slab_atomics|scale_group_partials|onehot_tensor_core|torch)" | cut -c1-200; done
