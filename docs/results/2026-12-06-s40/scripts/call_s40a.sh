#!/usr/bin/env bash
# session 40, call 1: whichever card comes. H200: issue 9's tuner over its six operators (tools/h200_optimize.sh).
# H100: embedding/flat_gather measured into the merged llm-inference table (--kernels), then Nsight Compute on
# the remaining kernel-patterns gaps beside torch.compile (tools/loser_profile.py).
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w40a; rm -rf "$W"; mkdir -p "$W/k" "$W/from" "$W/lp"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in
  *H200*) timeout 545 bash tools/h200_optimize.sh 200 rmsnorm layernorm rotary_embedding_neox fused_add_rmsnorm silu_and_mul softmax --time-limit ${OPT_MIN:-0.9} > /tmp/opt.txt 2>&1
          echo "rc $?"
          if [ ! -f "$OUT/optimize_bench.json" ]; then
            st=$(ls -dt /tmp/aka-optimize-* | head -1); cp "$st/optimize_bench.json" "$OUT/" 2>/dev/null
            tar czf "$OUT/details.tgz" -C "$st" --exclude optimize_bench.json . 2>/dev/null
            PYTHONPATH=/tmp/site:$PWD python3 tools/optimize_bench.py --render "$OUT/optimize_bench.json" > "$OUT/optimize_bench.md" 2>/dev/null
          fi
          tail -n 70 "$OUT/optimize_bench.md" 2>/dev/null || tail -n 30 /tmp/opt.txt; exit 0 ;;
esac
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
echo "$card" > "$W/card.txt"
cp .carry/h100-full/*.json "$W/from/"
OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 230 --label "$LABEL" --jobs 1 --from "$W/from" \
  --kernels embedding/flat_gather suites/llm-inference > "$W/k/run.txt" 2>&1; echo "kernels rc $?"
timeout 120 python3 -m aka profile suites/kernel-patterns/histogram reference_kernels/histogram/onehot_dot_privatized.py \
  --shape buckets-16m-1024 --out "$W/prof-onehot" > "$W/prof-onehot.txt" 2>&1; echo "onehot profile rc $?"
left=$(( 560 - ($(date +%s) - T0) ))
timeout $(( left - 15 )) python3 tools/loser_profile.py suites/kernel-patterns .carry/h100-full/kernel-patterns.json --out "$W/lp" \
  --ops histogram,outer_product,max_pool_2d_nhwc,reverse_rows,gemv_transposed,vector_norm_l2 --below 1.0 --budget-s $(( left - 90 )) > "$W/lp/run.txt" 2>&1
echo "lp rc $?"
tar czf "$FINAL/s40a.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
tail -n 4 "$W/k/run.txt"
[ -f "$W/k/llm-inference.json" ] && PYTHONPATH=. python3 tools/suite_bench.py --render "$W/k/llm-inference.json" --per-shape 2>/dev/null | grep -E "^\| embedding"
tail -n 25 "$W/prof-onehot.txt" | cut -c1-200
tail -n 30 "$W/lp/summary.md" 2>/dev/null | cut -c1-250
