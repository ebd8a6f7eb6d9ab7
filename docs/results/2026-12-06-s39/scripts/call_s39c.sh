#!/usr/bin/env bash
# session 39: whichever card comes. An H200: issue 9's tuner over its six operators in one call
# (tools/h200_optimize.sh). An H100: call 2 (the changed kernels into the H100 tables, then probes).
set -uo pipefail
cd "$(dirname "$0")/.."
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in
  *H200*) timeout 545 bash tools/h200_optimize.sh 200 ${OPT_OPS:-rmsnorm layernorm rotary_embedding_neox fused_add_rmsnorm silu_and_mul softmax} --time-limit ${OPT_MIN:-0.9} > /tmp/opt.txt 2>&1
          echo "rc $?"
          if [ ! -f "$OUT/optimize_bench.json" ]; then  # stopped by the timeout: keep what the finished operators wrote
            st=$(ls -dt /tmp/aka-optimize-* | head -1); cp "$st/optimize_bench.json" "$OUT/" 2>/dev/null
            tar czf "$OUT/details.tgz" -C "$st" --exclude optimize_bench.json . 2>/dev/null
            PYTHONPATH=/tmp/site:$PWD python3 tools/optimize_bench.py --render "$OUT/optimize_bench.json" > "$OUT/optimize_bench.md" 2>/dev/null
          fi
          tail -n 70 "$OUT/optimize_bench.md" 2>/dev/null || tail -n 30 /tmp/opt.txt ;;
  *) NEWK="${NEWK:-global_sum/single_launch_last_program,row_sum/adaptive_single_launch,vector_norm_l2/adaptive_single_launch,row_max_argmax/adaptive_single_launch}" KSUITE_S="${KSUITE_S:-220}" bash .carry/call_s39b.sh ;;
esac
