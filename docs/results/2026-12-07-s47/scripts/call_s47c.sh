#!/usr/bin/env bash
# Session 47's second call (BUDGET seconds, default 440; saves s47c.tgz to $OUT), on whichever card the
# device tool gives; on an H100 it continues s47a's table (docs/results/2026-12-07-s47/s47a/k2/):
#  0. GPU correctness of the two defaults changed after s47a: matmul_bf16/tma_persistent_flat
#     (SMEM_BUDGET 232000, a fourth stage) and histogram/shared_atomics_ptx (COPIES 1);
#  1. both measured again into the kernel-patterns table (--kernels);
#  2. the tuner on layernorm alone (its clip-vit point declared), MIN minutes (default 0.9);
#  3. with what is left, Nsight Compute beside torch.compile at the never-profiled losers:
#     gemv_transposed, row_sum, max_pool_1d (tools/loser_profile.py).
# Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
BUDGET=${BUDGET:-440}; call_begin s47c; LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
case "$card" in *H200*) slug=h200 ;; *H100*) slug=h100 ;; *) echo "neither an H200 nor an H100"; exit 4 ;; esac
export PYTHONPATH="$PWD"; carried_wheels || exit 3
mkdir -p "$W/from" "$W/k" "$W/lp"
timeout 100 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "tma_persistent_flat or shared_atomics_ptx" > "$W/pytest-gpu.txt" 2>&1; tail -n 1 "$W/pytest-gpu.txt"
[ "$slug" = h100 ] && cp docs/results/2026-12-07-s47/s47a/k2/kernel-patterns.json "$W/from/"   # s47a's table (tracked)
OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 150 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels matmul_bf16/tma_persistent_flat,histogram/shared_atomics_ptx suites/kernel-patterns > "$W/k/run.txt" 2>&1
echo "kernels rc $?"; save
if [ "$(left)" -gt 130 ]; then
  tuner_step "$W/opt" "${MIN:-0.9}" layernorm; save
fi
t=$(( $(left) - 15 ))
if [ "$t" -gt 70 ]; then
  timeout "$t" python3 tools/loser_profile.py suites/kernel-patterns docs/results/2026-12-07-s47/s47a/k2/kernel-patterns.json --out "$W/lp" \
    --ops gemv_transposed,row_sum,max_pool_1d --below 1.0 --budget-s $(( t - 35 )) > "$W/lp/run.txt" 2>&1
  echo "profiles rc $?"; save
fi
f="$W/k/kernel-patterns.json"
python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
python3 tools/suite_bench.py --render "$f" 2>/dev/null | grep -E "^\| (matmul_bf16|histogram) \| (tma_persistent_flat|shared_atomics_ptx) \|" | cut -c1-170
sed -n '/^| op | shape/,/^$/p' "$W/opt/optimize_bench.md" 2>/dev/null | grep -E "^\| layernorm" | cut -c1-170
tail -n 8 "$W/lp/summary.md" 2>/dev/null | cut -c1-230
echo "=== wall $(( $(date +%s) - T0 )) s"
