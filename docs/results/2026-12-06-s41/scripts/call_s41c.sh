#!/usr/bin/env bash
# session 41's prepared call, whichever card comes; BUDGET seconds (default 575); SHORT=1: steps 1 and 3 only.
#  1. GPU correctness of session 40's three changed kernels and the tf32x2 split test;
#  2. H200: kernel-patterns' last five operators into session 40's H200 results (--from .carry/h200);
#  3. the three changed kernels measured into this card's results (--kernels; H100: .carry/h100-full);
#  4. H200: issue 9's tuner on rmsnorm (the operator that missed at 0.9 minutes) for the time left.
# Saves after each step, so a call cut short still returns what it finished.
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w41c; rm -rf "$W"; mkdir -p "$W/k" "$W/k2" "$W/from" "$W/opt"; T0=$(date +%s); LABEL=$(cat .carry/label)
save() { tar czf "$FINAL/s41c.tgz" -C "$W" . ; }
left() { echo $(( ${BUDGET:-575} - ($(date +%s) - T0) )); }
NEWK="conv1d_depthwise_causal/tap_loop_tile,histogram/private_slab_atomics,matmul_int4_grouped/scale_group_partials"
bash tools/device_kernel_tests.sh "$W/tests" "tap_loop_tile or private_slab_atomics or scale_group_partials" \
  tests/reference_kernels/test_int4_tf32x2_split.py; save
export PYTHONPATH=/tmp/site:$PWD
card=$(cat "$W/tests/card.txt"); h200=0; case "$card" in *H200*) h200=1 ;; esac
if [ "$h200" = 1 ]; then cp .carry/h200/*.json "$W/from/"; else cp .carry/h100-full/*.json "$W/from/"; fi
if [ "$h200" = 1 ] && [ -z "${SHORT:-}" ]; then
  OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 220 --label "$LABEL" --jobs 3 --from "$W/from" suites/kernel-patterns \
    > "$W/k/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/k/run.txt"
  [ -f "$W/k/kernel-patterns.json" ] && cp "$W/k/kernel-patterns.json" "$W/from/"; save
fi
if [ "$(left)" -ge 130 ]; then
  OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) < 200 ? $(left) : 200 ))" --label "$LABEL" --jobs 3 \
    --from "$W/from" --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?"; save
fi
if [ "$h200" = 1 ] && [ -z "${SHORT:-}" ] && [ "$(left)" -gt 150 ]; then
  mins=$(python3 -c "print(round(max(0.8, min(1.7, ($(left) - 75) / 60)), 2))")
  OUT="$W/opt" timeout $(( $(left) - 10 )) bash tools/h200_optimize.sh 200 rmsnorm --time-limit "$mins" > "$W/opt/run.txt" 2>&1
  echo "optimize rc $? ($mins min)"
fi
save
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W/k/kernel-patterns.json" "$W/k2/kernel-patterns.json"; do [ -f "$f" ] && python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null \
  | grep -E "^Suite|^Operators at|^\| (conv1d_depthwise_causal|histogram|matmul_int4_grouped) \| (tap_loop_tile|private_slab_atomics|scale_group_partials|torch)" | cut -c1-200; done
head -n 12 "$W/opt/optimize_bench.md" 2>/dev/null | cut -c1-200
