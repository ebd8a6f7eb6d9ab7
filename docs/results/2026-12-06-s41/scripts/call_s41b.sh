#!/usr/bin/env bash
# session 41, issue 9 on an H200: the tuner (with 8f39821's early dispatcher) over three of the six operators
# per call, OPS given, MIN minutes each (default 1.7, session 37's setting): two calls cover the six.
#   OPS="rmsnorm layernorm rotary_embedding_neox" bash .carry/call_s41b.sh
#   OPS="fused_add_rmsnorm silu_and_mul softmax" bash .carry/call_s41b.sh
set -uo pipefail
cd "$(dirname "$0")/.."
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in *H200*) ;; *) echo "not an H200: issue 9's run wants one"; exit 4 ;; esac
timeout 560 bash tools/h200_optimize.sh 200 ${OPS:?} --time-limit ${MIN:-1.7} > /tmp/opt.txt 2>&1; echo "rc $?"
if [ ! -f "$OUT/optimize_bench.json" ]; then  # stopped by the timeout: keep what the finished operators wrote
  st=$(ls -dt /tmp/aka-optimize-* | head -1); cp "$st/optimize_bench.json" "$OUT/" 2>/dev/null
  tar czf "$OUT/details.tgz" -C "$st" --exclude optimize_bench.json . 2>/dev/null
  PYTHONPATH=/tmp/site:$PWD python3 tools/optimize_bench.py --render "$OUT/optimize_bench.json" > "$OUT/optimize_bench.md" 2>/dev/null
fi
head -n 30 "$OUT/optimize_bench.md" 2>/dev/null || tail -n 30 /tmp/opt.txt
