#!/usr/bin/env bash
# next session (37): on whatever card the tool lends (H100 counts, say which): GPU correctness of the
# .carry/h100-full, then both suites continued there (copy the JSON back into .carry/h100-full after!)
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w37; rm -rf "$W"; mkdir -p "$W/r" "$W/p"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
if [ "${SKIP_PYTEST:-0}" != 1 ]; then
  timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
    -k "(row_max_argmax and adaptive_single_launch) or radix_rows_one_program or private_slab_atomics" > "$W/pytest-changed.txt" 2>&1
  tail -n 3 "$W/pytest-changed.txt"
fi
if [ "${SKIP_PROBE:-0}" != 1 ]; then
  KP=suites/kernel-patterns; RK=reference_kernels
  OUT="$W/p" timeout 90 python3 docs/results/h100-2026-12-06-s36/probe/param_probe.py $KP/sort_rows $RK/sort_rows/radix_rows_one_program.py candidates-4096x1024,router-scores-16k-256 'DIGIT_BITS=2;DIGIT_BITS=3;DIGIT_BITS=4;NUM_WARPS=8' radix | tail -n 12
fi
left=$(( ${CALL_S:-560} - ($(date +%s) - T0) ))
OUT="$W/r" bash tools/h200_suite_bench.sh --budget-s "$(( left < 300 ? left : 300 ))" --calibrate --label "$LABEL" --jobs 1 --from .carry/h100-full \
  --kernels "${NEWK:-row_max_argmax/adaptive_single_launch,sort_rows/radix_rows_one_program,histogram/private_slab_atomics}" suites/kernel-patterns
tar czf "$FINAL/s37.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
grep -v ": accepted" "$W/r/kernel-patterns.log" | tail -n 3
PYTHONPATH=. python3 tools/suite_bench.py --render "$W/r/kernel-patterns.json" --per-shape 2>/dev/null | grep -E "^\| (row_max_argmax|sort_rows|histogram) \| [0-9.]+ \("
