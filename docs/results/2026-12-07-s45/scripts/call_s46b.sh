#!/usr/bin/env bash
# For the session after 45 (the tuner changed after session 45's run of this, call_s45b.sh): issue 9's six operators through the tuner under the grouped-median rule, on the card the device
# tool gives for `nvidia-h200` (an H200 or an H100; card.txt says which), in
# one call (BUDGET seconds, default 575; saves s46b.tgz to $OUT). Session 40 ran the six at 0.9 minutes each in
# 521 s; session 44's 0.6 minutes (on an H100) left most operators a handful of candidates after the first.
# Carry .carry and .whl (the lean GPU-path wheels, 6.8 MB).
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s46b
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
export PYTHONPATH="$PWD"; carried_wheels || exit 3
tuner_step "$W/opt" "${MIN:-0.9}" ${OPS:-rmsnorm layernorm rotary_embedding_neox fused_add_rmsnorm silu_and_mul softmax}
sed -n "1,/^$/p" "$W/opt/optimize_bench.md" 2>/dev/null | cut -c1-170
sed -n '/^| op | best kernel/,/^| all/p' "$W/opt/optimize_bench.md" 2>/dev/null
echo "=== wall $(( $(date +%s) - T0 )) s"
