#!/usr/bin/env bash
# Session 46, call 3, on whichever card the device tool gives (card.txt says which; .carry/gm-<card>/
# holds that card's tables from call 1). BUDGET seconds (default 575); saves s46c.tgz to $OUT.
#  1. the two kernels changed after call 1's Nsight profiles, measured again into the tables
#     (--kernels): embedding/flat_gather (hidden a compile-time constant, no masks on an exact grid)
#     and layout_nchw_to_nhwc/flat_or_tiled_by_channels (no division by H*W for one image);
#  2. the kernel-patterns operators still unmeasured on this card, for what is left of SUITE_S s;
#  3. parameter points against the baselines (tools/harness_probe.py) where the bar is missed:
#     matmul_bf16/tma_persistent_flat square-4096 (a fourth stage at 128x256x64: SMEM_BUDGET 232000
#     builds at 229,408 B for sm_90; GROUP_M) and row_sum/adaptive_single_launch hidden-4k-rows-8192.
# Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s46c; LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
case "$card" in *H200*) slug=h200 ;; *H100*) slug=h100 ;; *) echo "neither an H200 nor an H100"; exit 4 ;; esac
export PYTHONPATH="$PWD"; carried_wheels || exit 3
mkdir -p "$W/from" "$W/k1" "$W/k2" "$W/s"
[ -d ".carry/gm-$slug" ] && cp ".carry/gm-$slug"/*.json "$W/from/" 2>/dev/null
OUT="$W/k1" bash tools/h200_suite_bench.sh --budget-s 170 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels embedding/flat_gather suites/llm-inference > "$W/k1/run.txt" 2>&1; echo "embedding kernel rc $?"
[ -f "$W/k1/llm-inference.json" ] && cp "$W/k1/llm-inference.json" "$W/from/"; save
OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 170 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels layout_nchw_to_nhwc/flat_or_tiled_by_channels suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "layout kernel rc $?"
[ -f "$W/k2/kernel-patterns.json" ] && cp "$W/k2/kernel-patterns.json" "$W/from/"; save
t=$(( $(left) - 150 )); [ "$t" -gt "${SUITE_S:-200}" ] && t=${SUITE_S:-200}
if [ "$t" -gt 130 ]; then
  OUT="$W/s" bash tools/h200_suite_bench.sh --budget-s "$t" --label "$LABEL" --jobs 3 --from "$W/from" \
    suites/kernel-patterns > "$W/s/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/s/run.txt"
  [ -f "$W/s/kernel-patterns.json" ] && cp "$W/s/kernel-patterns.json" "$W/from/"; save
fi
K=suites/kernel-patterns; R=reference_kernels
harness_probe mm 90 6 $K/matmul_bf16 $R/matmul_bf16/tma_persistent_flat.py --shape square-4096 \
  --point SMEM_BUDGET=232000 --point GROUP_M=4 --point GROUP_M=16 --point SMEM_BUDGET=232000,GROUP_M=16
harness_probe rowsum 50 5 $K/row_sum $R/row_sum/adaptive_single_launch.py --shape hidden-4k-rows-8192 \
  --point TILE=8192 --point NUM_WARPS=8 --point TILE=8192,NUM_WARPS=8
for f in "$W"/from/*.json; do
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null \
    | grep -E "^\| (embedding|layout_nchw_to_nhwc) \| (flat_gather|flat_or_tiled_by_channels) \|" | cut -c1-170
done
echo "=== wall $(( $(date +%s) - T0 )) s"
