#!/usr/bin/env bash
# session 41, a short call (little device time left after refused starts), whichever card comes:
# GPU correctness of session 40's three changed kernels (+ the tf32x2 split test), then those kernels
# measured into this card's latest suite results (--kernels): H200 .carry/h200, H100 .carry/h100-full.
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w41d; rm -rf "$W"; mkdir -p "$W/k2" "$W/from"; T0=$(date +%s); LABEL=$(cat .carry/label)
save() { tar czf "$FINAL/s41d.tgz" -C "$W" . ; }
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
NEWK="conv1d_depthwise_causal/tap_loop_tile,histogram/private_slab_atomics,matmul_int4_grouped/scale_group_partials"
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "tap_loop_tile or private_slab_atomics or scale_group_partials" > "$W/pytest-new.txt" 2>&1; tail -n 3 "$W/pytest-new.txt"
timeout 45 python3 -m pytest -q -p no:cacheprovider tests/reference_kernels/test_int4_tf32x2_split.py > "$W/pytest-split.txt" 2>&1
tail -n 1 "$W/pytest-split.txt"; save
echo "=== after tests $(( $(date +%s) - T0 )) s"
case "$card" in *H200*) cp .carry/h200/*.json "$W/from/" ;; *) cp .carry/h100-full/*.json "$W/from/" ;; esac
left=$(( ${BUDGET:-300} - ($(date +%s) - T0) ))
if [ "$left" -ge 130 ]; then
  OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s "$left" --label "$LABEL" --jobs 3 --from "$W/from" \
    --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?"
fi
save
echo "=== wall $(( $(date +%s) - T0 )) s"
[ -f "$W/k2/kernel-patterns.json" ] && PYTHONPATH=. python3 tools/suite_bench.py --render "$W/k2/kernel-patterns.json" --per-shape 2>/dev/null \
  | grep -E "^\| (conv1d_depthwise_causal|histogram|matmul_int4_grouped) \| (tap_loop_tile|private_slab_atomics|scale_group_partials|torch)" | cut -c1-200
