#!/usr/bin/env bash
# session 38, call 1 (on the card the suites used: name nvidia-h100-x1; say which card ran it):
# GPU correctness of session 37's new kernel(s); do_bench parameter probes (ranking only) of every
# kernel still below its bar; the new kernel measured into .carry/h100-full with --kernels.
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w38; rm -rf "$W"; mkdir -p "$W/r" "$W/p"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
if [ "${SKIP_PYTEST:-0}" != 1 ]; then
  timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
    -k "${NEWK_PYTEST:-(gelu_and_mul and flat_1d) or packed_key_tiles or (rotary and flat_elements)}" > "$W/pytest-new.txt" 2>&1
  timeout 60 python3 -m pytest -q -p no:cacheprovider tests/reference_kernels/test_row_max_argmax_edges.py >> "$W/pytest-new.txt" 2>&1
  tail -n 3 "$W/pytest-new.txt"
fi
if [ "${SKIP_PROBE:-0}" != 1 ]; then
  while IFS='|' read -r suite op kernel shapes points; do
    [ -z "$op" ] && continue
    left=$(( ${PROBE_S:-330} - ($(date +%s) - T0) )); [ "$left" -lt 20 ] && { echo "probe budget spent before $op"; break; }
    OUT="$W/p" TORCHINDUCTOR_CACHE_DIR="$W/ind/$op" timeout $(( left < 70 ? left : 70 )) python3 .carry/param_probe.py suites/$suite/$op reference_kernels/$op/$kernel.py \
      "$shapes" "$points" "$op-$kernel" > "$W/p/$op-$kernel.txt" 2>&1
    grep -E " ok$| WRONG" "$W/p/$op.txt" | cut -c1-140 | tail -n 24
  done < .carry/probes_s38.txt
fi
left=$(( ${CALL_S:-560} - ($(date +%s) - T0) ))
if [ "$left" -gt 60 ] && { case "$card" in *H100*) true;; *) [ "${ANY_CARD:-0}" = 1 ];; esac; }; then
  OUT="$W/r" bash tools/h200_suite_bench.sh --budget-s "$(( left - 20 ))" --calibrate --label "$LABEL" --jobs 1 --from .carry/h100-full \
    --kernels "${NEWK:-gelu_and_mul/flat_1d,row_max_argmax/packed_key_tiles,rotary_embedding_neox/flat_elements}" suites/llm-inference suites/kernel-patterns
fi
find "$W/ind" -type f ! -name "*.py" -delete 2>/dev/null
tar czf "$FINAL/s38.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
PYTHONPATH=. python3 tools/suite_bench.py --render "$W/r/llm-inference.json" --per-shape 2>/dev/null | grep -E "^\| gelu_and_mul \| [0-9.]+ \("
