#!/usr/bin/env bash
# session 41, one call on whichever card comes (budget was short after refused starts):
#  1. GPU correctness of session 40's three changed kernels (+ the tf32x2 split test);
#  2. H200: kernel-patterns' last five operators into session 40's H200 results (--from .carry/h200),
#     the three changed kernels measured into the same results (--kernels), then issue 9's tuner on
#     rmsnorm (the operator that missed at 0.9 minutes) for what time is left;
#     H100: the three changed kernels into the H100 tables (.carry/h100-full).
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w41c; rm -rf "$W"; mkdir -p "$W/k" "$W/k2" "$W/from" "$W/opt"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
NEWK="conv1d_depthwise_causal/tap_loop_tile,histogram/private_slab_atomics,matmul_int4_grouped/scale_group_partials"
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "tap_loop_tile or private_slab_atomics or scale_group_partials" > "$W/pytest-new.txt" 2>&1; tail -n 3 "$W/pytest-new.txt"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/reference_kernels/test_int4_tf32x2_split.py > "$W/pytest-split.txt" 2>&1
tail -n 1 "$W/pytest-split.txt"
echo "=== after tests $(( $(date +%s) - T0 )) s"
save() { tar czf "$FINAL/s41c.tgz" -C "$W" . ; }   # after each stage: a call cut short still returns what it finished
save
case "$card" in
  *H200*) cp .carry/h200/*.json "$W/from/"
          OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 220 --label "$LABEL" --jobs 3 --from "$W/from" suites/kernel-patterns \
            > "$W/k/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/k/run.txt"
          [ -f "$W/k/kernel-patterns.json" ] && cp "$W/k/kernel-patterns.json" "$W/from/"; save
          OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 150 --label "$LABEL" --jobs 3 --from "$W/from" \
            --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?"; save
          left=$(( ${BUDGET:-575} - ($(date +%s) - T0) )); echo "=== left for the tuner: $left s"
          if [ "$left" -gt 150 ]; then
            mins=$(python3 -c "print(round(max(0.8, min(1.7, ($left - 75) / 60)), 2))")
            OUT="$W/opt" timeout $(( left - 10 )) bash tools/h200_optimize.sh 200 rmsnorm --time-limit "$mins" > "$W/opt/run.txt" 2>&1
            echo "optimize rc $? ($mins min)"
          fi ;;
  *) cp .carry/h100-full/*.json "$W/from/"
     OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 200 --label "$LABEL" --jobs 3 --from "$W/from" \
       --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?" ;;
esac
save
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W/k/kernel-patterns.json" "$W/k2/kernel-patterns.json"; do [ -f "$f" ] && PYTHONPATH=. python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at|^\| (conv1d_depthwise_causal|histogram|matmul_int4_grouped) \| torch"; done
head -n 12 "$W/opt/optimize_bench.md" 2>/dev/null | cut -c1-200
