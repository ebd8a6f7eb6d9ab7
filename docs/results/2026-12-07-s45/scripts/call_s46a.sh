#!/usr/bin/env bash
# For the session after 45, on whichever card the device tool gives for `nvidia-h200` (one call,
# BUDGET seconds, default 575; saves s46a.tgz to $OUT):
#  0. the GPU correctness of the two kernels changed in session 45 without a GPU (histogram/
#     onehot_dot_privatized's TILE_LOADS path, reverse_rows/flat_mirrored's VEC_FLIP now the default):
#     the suite's kernel tests and tests/reference_kernels/test_histogram_onehot.py;
#  1. the suites continued through .carry/gm-<card>/ (h100: session 45's tables, llm-inference whole and
#     kernel-patterns 27 of 34; h200: from nothing), at most SUITE_S seconds (default 240), then
#     both measured again into this card's kernel-patterns table (--kernels);
#  2. Nsight Compute on the worst shapes below the bar in this card's tables, beside torch.compile
#     (tools/loser_profile.py): histogram buckets-16m-1024 (0.845x on the H100), matmul_bf16 square-4096
#     (0.903x cuBLAS), layout_nchw_to_nhwc vit-image (0.949x), embedding's decode shapes (0.92-0.96x).
# Carry .carry (with gm-<card>/ and label) and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
RES=(); call_begin s46a; mkdir -p "$W/s" "$W/from" "$W/lp-kp" "$W/lp-llm"; LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
case "$card" in *H200*) slug=h200 ;; *H100*) slug=h100 ;; *) echo "neither an H200 nor an H100"; exit 4 ;; esac
export PYTHONPATH="$PWD"; carried_wheels || exit 3
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "onehot_dot_privatized or flat_mirrored" > "$W/pytest-gpu.txt" 2>&1; tail -n 1 "$W/pytest-gpu.txt"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/reference_kernels/test_histogram_onehot.py \
  > "$W/pytest-onehot.txt" 2>&1; tail -n 1 "$W/pytest-onehot.txt"
[ -d ".carry/gm-$slug" ] && cp ".carry/gm-$slug"/*.json "$W/from/" 2>/dev/null
OUT="$W/s" bash tools/h200_suite_bench.sh --budget-s "${SUITE_S:-240}" --label "$LABEL" --jobs 3 --calibrate \
  --from "$W/from" suites/llm-inference suites/kernel-patterns > "$W/s/run.txt" 2>&1; echo "suites rc $?"
tail -n 4 "$W/s/run.txt"; save
[ -f "$W/s/kernel-patterns.json" ] && cp "$W/s/kernel-patterns.json" "$W/from/"
mkdir -p "$W/k"; OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 150 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels histogram/onehot_dot_privatized,reverse_rows/flat_mirrored suites/kernel-patterns > "$W/k/run.txt" 2>&1; echo "onehot kernel rc $?"
[ -f "$W/k/kernel-patterns.json" ] && cp "$W/k/kernel-patterns.json" "$W/s/kernel-patterns.json"; save
for suite in kernel-patterns llm-inference; do             # the newest table of each suite, this run's or the carried one
  RES[${#RES[@]}]=$( [ -f "$W/s/$suite.json" ] && echo "$W/s/$suite.json" || echo "$W/from/$suite.json" )
done
t=$(( $(left) - 20 ))
if [ "$t" -gt 90 ] && [ -f "${RES[0]}" ]; then
  timeout $(( t * 7 / 10 )) python3 tools/loser_profile.py suites/kernel-patterns "${RES[0]}" --out "$W/lp-kp" \
    --ops histogram,matmul_bf16,layout_nchw_to_nhwc --below 0.96 --budget-s $(( t * 7 / 10 - 50 )) \
    > "$W/lp-kp/run.txt" 2>&1; echo "profiles kernel-patterns rc $?"; save
fi
t=$(( $(left) - 15 ))
if [ "$t" -gt 60 ] && [ -f "${RES[1]}" ]; then
  timeout "$t" python3 tools/loser_profile.py suites/llm-inference "${RES[1]}" --out "$W/lp-llm" \
    --ops embedding --below 0.97 --budget-s $(( t - 45 )) > "$W/lp-llm/run.txt" 2>&1; echo "profiles llm-inference rc $?"; save
fi
for f in "$W"/s/*.json; do
  case "$f" in *calibration*) continue ;; esac
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
done
for d in lp-kp lp-llm; do tail -n 12 "$W/$d/summary.md" 2>/dev/null | cut -c1-220; done
echo "=== wall $(( $(date +%s) - T0 )) s"
