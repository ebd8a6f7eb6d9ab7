#!/usr/bin/env bash
# Session 47's second call, on whichever card the device tool gives (BUDGET seconds, default 575; saves
# s47b.tgz to $OUT):
#  1. Nsight Compute beside torch.compile (tools/loser_profile.py) at the shapes of kernel-patterns'
#     operators below their bar in session 46's H100 table that were never profiled: gemv_transposed,
#     row_sum, max_pool_1d, reverse_rows, max_pool_2d_nhwc, scatter_add_rows, global_sum (the table
#     picks each shape's fastest kernel; on another card the shapes are the H100's losers);
#  2. the tuner on layernorm alone (its clip-vit point is declared now), MIN minutes (default 0.9),
#     if enough time is left.
# Carry .carry and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s47b; mkdir -p "$W/lp"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
export PYTHONPATH="$PWD"; carried_wheels || exit 3
t=$(( $(left) - ${TUNER_S:-150} ))
if [ "$t" -gt 90 ]; then
  timeout "$t" python3 tools/loser_profile.py suites/kernel-patterns .carry/gm-h100/kernel-patterns.json --out "$W/lp" \
    --ops gemv_transposed,row_sum,max_pool_1d,reverse_rows,max_pool_2d_nhwc,scatter_add_rows,global_sum --below 1.0 \
    --budget-s $(( t - 40 )) > "$W/lp/run.txt" 2>&1; echo "profiles rc $?"; save
fi
if [ "$(left)" -gt 120 ]; then
  tuner_step "$W/opt" "${MIN:-0.9}" layernorm; save
  sed -n '/^| op | shape/,/^$/p' "$W/opt/optimize_bench.md" 2>/dev/null | grep -E "^\| (op|layernorm)" | cut -c1-170
fi
tail -n 16 "$W/lp/summary.md" 2>/dev/null | cut -c1-230
echo "=== wall $(( $(date +%s) - T0 )) s"
