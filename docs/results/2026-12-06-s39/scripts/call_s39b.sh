#!/usr/bin/env bash
# session 39, call 2 (nvidia-h100-x1): the changed kernels measured into the merged H100 results (--kernels),
# then harness probes at every visible shape for default changes that would touch every shape.
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w39b; rm -rf "$W"; mkdir -p "$W/p" "$W/k" "$W/from"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
case "$card" in *H100*) SAME=1;; *) SAME=0;; esac
if [ -n "${NEWK_PYTEST:-}" ]; then
  timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py -k "$NEWK_PYTEST" > "$W/pytest-new.txt" 2>&1; tail -n 3 "$W/pytest-new.txt"
fi
if [ "$SAME" = 1 ] && [ -n "${NEWK:-}" ]; then
  cp .carry/h100-full/*.json "$W/from/"
  OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s "${KSUITE_S:-200}" --label "$LABEL" --jobs 1 --from "$W/from" \
    --kernels "$NEWK" ${KSUITES:-suites/kernel-patterns}
fi
while IFS='|' read -r suite op kernel shapes points; do
  [ -z "$op" ] && continue
  left=$(( ${CALL_S:-570} - 20 - ($(date +%s) - T0) )); [ "$left" -lt 25 ] && { echo "probe budget spent before $op/$kernel"; break; }
  args=(); IFS=',' read -ra sh <<< "$shapes"; for s in "${sh[@]}"; do args+=(--shape "$s"); done
  IFS=';' read -ra pts <<< "$points"; for pt in "${pts[@]}"; do args+=(--point "$pt"); done
  timeout $(( left < 200 ? left : 200 )) python3 tools/harness_probe.py suites/$suite/$op reference_kernels/$op/$kernel.py \
    "${args[@]}" --out "$W/p/$op-$kernel.json" > "$W/p/$op-$kernel.txt" 2>&1
  echo "== $op/$kernel"; grep -E "accepted|rejected|error|Error" "$W/p/$op-$kernel.txt" | cut -c1-150 | tail -n 16
done < "${PROBES:-.carry/probes_s39b.txt}"
tar czf "$FINAL/s39b.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W"/k/*.log; do [ -f "$f" ] && { echo "== $f"; grep -v ": accepted" "$f" | tail -n 3 | cut -c1-300; }; done
for f in "$W"/k/kernel-patterns.json "$W"/k/llm-inference.json; do [ -f "$f" ] && PYTHONPATH=. python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "torch.compile: ≥" | grep -E "${NEWK_OPS:-global_sum|row_sum|vector_norm|row_max_argmax}"; done
