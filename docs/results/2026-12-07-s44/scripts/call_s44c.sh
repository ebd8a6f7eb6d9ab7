#!/usr/bin/env bash
# session 44: issue 9's six operators through the tuner in one call under the grouped-median rule (an H200 wanted;
# BUDGET seconds, default 575; saves s44c.tgz to $OUT after each step). Session 40 ran the six at 0.9 minutes each
# in 521 s; here MIN minutes each (default 0.75), after the span-grid probe (about 20 s).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s44c; mkdir -p "$W/probe" "$W/opt"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
export PYTHONPATH="$PWD"; carried_wheels || exit 3
timeout 45 python3 tools/span_grid_probe.py --reps 400 --out "$W/probe/spans.json" > "$W/probe/spans.txt" 2>&1
echo "spans rc $?"; tail -n 7 "$W/probe/spans.txt" | cut -c1-160; save
case "$card" in *H200*) ;; *) echo "not an H200: issue 9's tuner run wants one"; exit 0 ;; esac
tuner_step "$W/opt" "${MIN:-0.75}" ${OPS:-rmsnorm layernorm rotary_embedding_neox fused_add_rmsnorm silu_and_mul softmax}
head -n 45 "$W/opt/optimize_bench.md" 2>/dev/null | cut -c1-170
echo "=== wall $(( $(date +%s) - T0 )) s"
