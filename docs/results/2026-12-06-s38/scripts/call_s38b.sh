#!/usr/bin/env bash
# session 38, call 2 (name nvidia-h100-x1): GPU correctness of the changed fp8 per-token kernels; the three
# llm-inference operators still unmeasured; the fp8 kernels measured into .carry/h100-full (--kernels);
# CUDA-graph parameter probes (ranking only) with whatever time is left.
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w38b; rm -rf "$W"; mkdir -p "$W/r" "$W/k" "$W/p"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "${NEWK_PYTEST:-fp8_quant_per_token or (global_sum and single_launch)}" > "$W/pytest-new.txt" 2>&1; tail -n 3 "$W/pytest-new.txt"
case "$card" in *H100*) SAME=1;; *) SAME=0;; esac
if [ "$SAME" = 1 ] && [ "${SKIP_OPS:-0}" != 1 ]; then
  OUT="$W/r" bash tools/h200_suite_bench.sh --budget-s "${SUITE_S:-330}" --calibrate --label "$LABEL" --jobs 3 --from .carry/h100-full \
    --ops softmax,topk_topp_sampling,fused_moe_grouped_gemm suites/llm-inference
  cp "$W/r/llm-inference.json" "$W/merged-llm.json" 2>/dev/null
fi
if [ "$SAME" = 0 ]; then  # an H200: issue 9's tuner on rotary (its new flat_elements family) instead of the H100 tables
  mkdir -p "$W/t"; OUT="$W/t" timeout 300 bash tools/h200_optimize.sh 200 rotary_embedding_neox --time-limit 1.7 > "$W/t/stdout.txt" 2>&1
  tail -n 30 "$W/t/optimize_bench.md" 2>/dev/null | grep -E "rotary|all"
fi
left=$(( ${CALL_S:-585} - ($(date +%s) - T0) ))
if [ "$SAME" = 1 ] && [ "$left" -gt 90 ] && [ -n "${NEWK:-fp8_quant_per_token/one_row_registers,fp8_quant_per_token/blocked_two_sweep}" ]; then
  mkdir -p "$W/from"; cp .carry/h100-full/*.json "$W/from/"; [ -f "$W/merged-llm.json" ] && cp "$W/merged-llm.json" "$W/from/llm-inference.json"
  OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 130 --label "$LABEL" --jobs 1 --from "$W/from" \
    --kernels "${NEWK:-fp8_quant_per_token/one_row_registers,fp8_quant_per_token/blocked_two_sweep,global_sum/single_launch_last_program}" suites/llm-inference suites/kernel-patterns
fi
while IFS='|' read -r suite op kernel shapes points; do
  [ -z "$op" ] && continue
  left=$(( ${CALL_S:-585} - 15 - ($(date +%s) - T0) )); [ "$left" -lt 20 ] && { echo "probe budget spent before $op/$kernel"; break; }
  OUT="$W/p" TORCHINDUCTOR_CACHE_DIR="$W/ind/$op" timeout $(( left < 70 ? left : 70 )) python3 .carry/param_probe.py suites/$suite/$op \
    reference_kernels/$op/$kernel.py "$shapes" "$points" "$op-$kernel" > "$W/p/$op-$kernel.txt" 2>&1
  grep -E " ok$| WRONG" "$W/p/$op-$kernel.txt" | cut -c1-130 | tail -n 14
done < "${PROBES:-.carry/probes_s38b.txt}"
find "$W/ind" -type f ! -name "*.py" -delete 2>/dev/null
tar czf "$FINAL/s38b.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W"/r/*.log "$W"/k/*.log; do [ -f "$f" ] && { echo "== $f"; grep -v ": accepted" "$f" | tail -n 3 | cut -c1-300; }; done
for f in "$W"/k/llm-inference.json "$W"/k/kernel-patterns.json "$W"/r/llm-inference.json; do [ -f "$f" ] && PYTHONPATH=. python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "torch.compile: ≥|cuBLAS|: > 1.0" | grep -E "softmax|topk|fused_moe|fp8_quant_per_token|global_sum"; done
