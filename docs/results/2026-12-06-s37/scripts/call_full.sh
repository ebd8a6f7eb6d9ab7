#!/usr/bin/env bash
# both suites on the lent card under the static-compile rule, continuing .carry/h100-full (seeded
# with session 36's twelve operators); later calls continue from the results copied back there
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/wf; rm -rf "$W"; mkdir -p "$W/r"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
OUT="$W/r" bash tools/h200_suite_bench.sh --budget-s "${SUITE_S:-560}" --calibrate --label "$LABEL" --jobs 3 --from .carry/h100-full \
  ${OPS:+--ops $OPS} ${SUITES:-suites/kernel-patterns suites/llm-inference}
tar czf "$FINAL/f.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W"/r/*.log; do echo "== $f"; grep -v ": accepted" "$f" | tail -n 3 | cut -c1-400; done
for f in "$W"/r/*.json; do PYTHONPATH=. python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^\| [a-z_0-9]+ \| [0-9.]+ \(|^Suite"; done
