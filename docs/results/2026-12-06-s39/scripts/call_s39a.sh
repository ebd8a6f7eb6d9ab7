#!/usr/bin/env bash
# session 39, call 1 (nvidia-h100-x1): GPU correctness of the changed kernels; Inductor's kernels for the
# losing shapes (design facts); harness probes (tools/harness_probe.py) of parameter points at those shapes.
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w39a; rm -rf "$W"; mkdir -p "$W/p" "$W/ind"; T0=$(date +%s)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
nvidia-smi --query-gpu=driver_version,clocks.sm,clocks.max.sm --format=csv > "$W/gpu.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
# Inductor dumps run beside the pytest (CPU-bound compiles; nothing here is timed)
while IFS='|' read -r suite op shape; do
  [ -z "$op" ] && continue
  ( TORCHINDUCTOR_CACHE_DIR="$W/ind/$op-$shape" timeout 150 python3 .carry/inductor_dump.py suites/$suite/$op $shape > "$W/ind/$op-$shape.log" 2>&1 ) &
done < .carry/dumps_s39.txt
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "${NEWK_PYTEST:-global_sum or row_sum or vector_norm or row_max_argmax}" > "$W/pytest-new.txt" 2>&1; tail -n 3 "$W/pytest-new.txt"
wait
echo "dumps done at $(( $(date +%s) - T0 )) s"
while IFS='|' read -r suite op kernel shapes points; do
  [ -z "$op" ] && continue
  left=$(( ${CALL_S:-570} - 20 - ($(date +%s) - T0) )); [ "$left" -lt 25 ] && { echo "probe budget spent before $op/$kernel"; break; }
  args=(); IFS=',' read -ra sh <<< "$shapes"; for s in "${sh[@]}"; do args+=(--shape "$s"); done
  IFS=';' read -ra pts <<< "$points"; for pt in "${pts[@]}"; do args+=(--point "$pt"); done
  timeout $(( left < 150 ? left : 150 )) python3 tools/harness_probe.py suites/$suite/$op reference_kernels/$op/$kernel.py \
    "${args[@]}" --out "$W/p/$op-$kernel.json" > "$W/p/$op-$kernel.txt" 2>&1
  echo "== $op/$kernel"; grep -v "^\s*$" "$W/p/$op-$kernel.txt" | grep -E "accepted|rejected|error|Error" | cut -c1-150 | tail -n 12
done < .carry/probes_s39a.txt
find "$W/ind" -type f ! -name "*.py" ! -name "*.best_config" ! -name "*.log" -delete 2>/dev/null
find "$W/ind" -type d -empty -delete 2>/dev/null
tar czf "$FINAL/s39a.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
