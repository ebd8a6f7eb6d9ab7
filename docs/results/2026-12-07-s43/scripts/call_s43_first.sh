#!/usr/bin/env bash
# session 43's first call: on an H200, issue 9's tuner over the two operators that missed 1.0x torch.compile in
# session 40 (rmsnorm, silu_and_mul) and fused_add_rmsnorm, MIN minutes each (first measurement of session 41's
# rate changes and of reply-before-reap); on any other card, call_s43a (correctness, tables, probes).
set -uo pipefail
cd "$(dirname "$0")/.."
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in
  *H200*) OPS="${OPS:-rmsnorm silu_and_mul fused_add_rmsnorm}" MIN="${MIN:-1.5}" bash .carry/call_s41b.sh ;;
  *) BUDGET="${BUDGET:-560}" bash .carry/call_s43a.sh ;;
esac
