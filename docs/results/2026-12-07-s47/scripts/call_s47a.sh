#!/usr/bin/env bash
# For the session after 46 (written in session 46, whose device time ran out before it could run), on
# whichever card the device tool gives (card.txt says which; .carry/gm-<card>/ holds that card's
# tables: for an H100, session 46's docs/results/2026-12-07-s46/s46a/s/kernel-patterns.json and
# session 45's s45a-3/s/llm-inference.json). BUDGET seconds (default 575); saves s47a.tgz to $OUT.
# Session 47 added histogram/shared_atomics_ptx (shared-memory atomics in inline PTX) to steps 0, 1 and 3.
#  0. the GPU correctness of the three kernels changed in session 46 without a GPU: their suite tests
#     and tests/reference_kernels/test_{histogram_onehot,flat_constexpr_paths}.py;
#  1. the three measured again into the tables (--kernels): embedding/flat_gather (hidden a
#     compile-time constant, no masks on an exact grid), layout_nchw_to_nhwc/flat_or_tiled_by_channels
#     (no division by H*W for one image), histogram/onehot_dot_privatized (BYTE_CODES);
#  2. the kernel-patterns operators still unmeasured on this card, for what is left of SUITE_S s;
#  3. parameter points against the baselines (tools/harness_probe.py): histogram BYTE_CODES 0/1 at
#     buckets-16m-1024; matmul_bf16/tma_persistent_flat square-4096 (a fourth stage at 128x256x64:
#     SMEM_BUDGET 232000 builds at 229,408 B for sm_90; GROUP_M; TALL_TILE's 256x128 tile, cuBLAS's),
#     with mm-clocks.csv logging SM clock, power and throttle reasons every 200 ms meanwhile (its
#     harness figure trails its Nsight figure); row_sum/adaptive_single_launch hidden-4k-rows-8192;
#     then, if time is left, gemv_transposed/split_k_fused_finalize gpt2-xl-mlp-up (0.953x cuBLAS)
#     and max_pool_1d/contiguous_window_tile small (0.972x).
# Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s47a; LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
case "$card" in *H200*) slug=h200 ;; *H100*) slug=h100 ;; *) echo "neither an H200 nor an H100"; exit 4 ;; esac
export PYTHONPATH="$PWD"; carried_wheels || exit 3
mkdir -p "$W/from" "$W/k1" "$W/k2" "$W/s"
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "onehot_dot_privatized or shared_atomics_ptx or flat_gather or flat_or_tiled_by_channels" > "$W/pytest-gpu.txt" 2>&1; tail -n 1 "$W/pytest-gpu.txt"
timeout 90 python3 -m pytest -q -p no:cacheprovider tests/reference_kernels/test_histogram_onehot.py \
  tests/reference_kernels/test_histogram_shared_atomics.py tests/reference_kernels/test_flat_constexpr_paths.py > "$W/pytest-paths.txt" 2>&1; tail -n 1 "$W/pytest-paths.txt"
[ -d ".carry/gm-$slug" ] && cp ".carry/gm-$slug"/*.json "$W/from/" 2>/dev/null
OUT="$W/k1" bash tools/h200_suite_bench.sh --budget-s 170 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels embedding/flat_gather suites/llm-inference > "$W/k1/run.txt" 2>&1; echo "embedding kernel rc $?"
[ -f "$W/k1/llm-inference.json" ] && cp "$W/k1/llm-inference.json" "$W/from/"; save
OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 170 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels histogram/shared_atomics_ptx,layout_nchw_to_nhwc/flat_or_tiled_by_channels,histogram/onehot_dot_privatized suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "layout and histogram kernels rc $?"
[ -f "$W/k2/kernel-patterns.json" ] && cp "$W/k2/kernel-patterns.json" "$W/from/"; save
t=$(( $(left) - 150 )); [ "$t" -gt "${SUITE_S:-200}" ] && t=${SUITE_S:-200}
if [ "$t" -gt 130 ]; then
  OUT="$W/s" bash tools/h200_suite_bench.sh --budget-s "$t" --label "$LABEL" --jobs 3 --from "$W/from" \
    suites/kernel-patterns > "$W/s/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/s/run.txt"
  [ -f "$W/s/kernel-patterns.json" ] && cp "$W/s/kernel-patterns.json" "$W/from/"; save
fi
K=suites/kernel-patterns; R=reference_kernels
harness_probe hist 60 5 $K/histogram $R/histogram/shared_atomics_ptx.py --shape buckets-16m-1024 \
  --point COPIES=1 --point COPIES=4 --point NUM_WARPS=16 --point PROGRAMS_PER_SM=8,NUM_WARPS=4
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active \
  --format=csv -lms 200 > "$W/mm-clocks.csv" 2>&1 & SMI=$!      # the clocks and power while the GEMMs are timed
harness_probe mm 80 6 $K/matmul_bf16 $R/matmul_bf16/tma_persistent_flat.py --shape square-4096 \
  --point SMEM_BUDGET=232000 --point GROUP_M=16 --point TALL_TILE=1 --point TALL_TILE=1,SMEM_BUDGET=232000
kill "$SMI" 2>/dev/null; save
harness_probe rowsum 50 5 $K/row_sum $R/row_sum/adaptive_single_launch.py --shape hidden-4k-rows-8192 \
  --point TILE=8192 --point NUM_WARPS=8 --point TILE=8192,NUM_WARPS=8
harness_probe gemvt 60 4 $K/gemv_transposed $R/gemv_transposed/split_k_fused_finalize.py --shape gpt2-xl-mlp-up-1600x6400 \
  --point SMALL_BLOCK_K=32 --point SMALL_PROGRAMS_PER_SM=1 --point SMALL_PROGRAMS_PER_SM=3,SMALL_BLOCK_K=8
harness_probe pool 45 4 $K/max_pool_1d $R/max_pool_1d/contiguous_window_tile.py --shape small-4x128x512-k2s2 \
  --point AUTO=0,BLOCK=256,NUM_WARPS=2 --point AUTO=0,BLOCK=1024,NUM_WARPS=4
for f in "$W"/from/*.json; do
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null \
    | grep -E "^\| (embedding|layout_nchw_to_nhwc|histogram) \| (flat_gather|flat_or_tiled_by_channels|onehot_dot_privatized|shared_atomics_ptx) \|" | cut -c1-170
done
echo "=== wall $(( $(date +%s) - T0 )) s"
