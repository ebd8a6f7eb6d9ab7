#!/usr/bin/env bash
# Session 48's first call (BUDGET seconds, default 560; saves s48a.tgz to $OUT). On an H200 it hands the
# whole budget to call_s45a.sh (both suites from nothing, continued with --from .carry/gm-h200/). On an
# H100 it continues session 47's tables (docs/results/2026-12-07-s47/s47a/k1, k2) with the defaults
# changed since they were measured:
#  0. GPU correctness (bf16 and fp32, every shape and held-out shape) of matmul_bf16 and linear_bf16
#     tma_persistent_flat (SMEM_BUDGET 232000, a fourth stage) and histogram/shared_atomics_ptx (COPIES 1);
#  1. matmul_bf16/tma_persistent_flat and histogram/shared_atomics_ptx into the kernel-patterns table;
#  2. linear_bf16/tma_persistent_flat into the llm-inference table;
#  3. the tuner on layernorm alone (its clip-vit point declared), MIN minutes (default 0.9);
#  4. with what is left, Nsight Compute beside torch.compile at gemv, gemv_transposed and row_sum
#     (tools/loser_profile.py).
# Carry .carry (this script, call_s45a.sh, label) and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
BUDGET=${BUDGET:-560}
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in
  *H200*) BUDGET=$BUDGET exec bash .carry/call_s45a.sh ;;
  *H100*) ;;
  *) echo "neither an H200 nor an H100"; exit 4 ;;
esac
call_begin s48a; LABEL=$(cat .carry/label); echo "$card" > "$W/card.txt"
export PYTHONPATH="$PWD"; carried_wheels || exit 3
export PYTHONUNBUFFERED=1 AKA_CACHE_DIR="${AKA_CACHE_DIR:-/tmp/aka-cache}"
mkdir -p "$W/k1" "$W/k2" "$W/lp" "$W/from1" "$W/from2"
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$W/gpu.txt"
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "tma_persistent_flat or shared_atomics_ptx" > "$W/pytest-gpu.txt" 2>&1; tail -n 1 "$W/pytest-gpu.txt"; save
S47=docs/results/2026-12-07-s47/s47a
cp "$S47/k2/kernel-patterns.json" "$W/from2/"; cp "$S47/k1/llm-inference.json" "$W/from1/"
OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 150 --label "$LABEL" --jobs 1 --from "$W/from2" \
  --kernels matmul_bf16/tma_persistent_flat,histogram/shared_atomics_ptx suites/kernel-patterns > "$W/k2/run.txt" 2>&1
echo "kernel-patterns rc $?"; save
OUT="$W/k1" bash tools/h200_suite_bench.sh --budget-s 110 --label "$LABEL" --jobs 1 --from "$W/from1" \
  --kernels linear_bf16/tma_persistent_flat suites/llm-inference > "$W/k1/run.txt" 2>&1
echo "llm-inference rc $?"; save
if [ "$(left)" -gt 130 ]; then
  tuner_step "$W/opt" "${MIN:-0.9}" layernorm; save
fi
t=$(( $(left) - 15 ))
if [ "$t" -gt 70 ]; then
  timeout "$t" python3 tools/loser_profile.py suites/kernel-patterns "$S47/k2/kernel-patterns.json" --out "$W/lp" \
    --ops gemv,gemv_transposed,row_sum --below 1.0 --budget-s $(( t - 35 )) > "$W/lp/run.txt" 2>&1
  echo "profiles rc $?"; save
fi
for f in "$W/k2/kernel-patterns.json" "$W/k1/llm-inference.json"; do
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
  python3 tools/suite_bench.py --render "$f" 2>/dev/null \
    | grep -E "^\| (matmul_bf16|histogram|linear_bf16) \| (tma_persistent_flat|shared_atomics_ptx) \|" | cut -c1-170
done
sed -n '/^| op | shape/,/^$/p' "$W/opt/optimize_bench.md" 2>/dev/null | grep -E "^\| layernorm" | cut -c1-170
tail -n 8 "$W/lp/summary.md" 2>/dev/null | cut -c1-230
echo "=== wall $(( $(date +%s) - T0 )) s"
