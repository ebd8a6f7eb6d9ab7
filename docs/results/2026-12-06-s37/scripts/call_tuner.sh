#!/usr/bin/env bash
# next session, tuner call: card check; GPU correctness of the kernels never run on a GPU; issue 9's
# six operators through `aka optimize` (tuner, screens as focused trials) in one budget
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/wt; rm -rf "$W"; mkdir -p "$W/opt"; T0=$(date +%s)
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
[ "${SKIP_PYTEST:-0}" = 1 ] || PYTHONPATH=/tmp/site:$PWD timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "occupancy_chunks_tiled_merge or bags_per_program_pool_sized or pixel_slab_all_groups" > "$W/pytest-new-kernels.txt" 2>&1
tail -n 3 "$W/pytest-new-kernels.txt" 2>/dev/null
if [ -n "${PROBE:-}" ]; then
  PYTHONPATH=/tmp/site:$PWD timeout "${PROBE_S:-130}" python3 tools/compile_probe.py $PROBE --out "$W/compile_probe.json" > "$W/compile_probe.txt" 2>&1
  tail -n 30 "$W/compile_probe.txt" | grep "^|"
fi
OUT="$W/opt" timeout $(( ${TUNER_S:-560} - ($(date +%s) - T0) )) bash tools/h200_optimize.sh 200 \
  ${OPS:-rmsnorm fused_add_rmsnorm silu_and_mul softmax layernorm rotary_embedding_neox} --time-limit "${MIN:-1.0}"
[ -f "$W/opt/optimize_bench.md" ] || for d in /tmp/aka-optimize-*; do cp -r "$d" "$W/stage-$(basename "$d")"; done
tar czf "$FINAL/t.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
sed -n '/^| op | best kernel/,/^$/p' "$W/opt/optimize_bench.md" 2>/dev/null
