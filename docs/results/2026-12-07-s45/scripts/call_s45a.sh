#!/usr/bin/env bash
# Session 45: both suites measured again from nothing under the grouped-median rule
# (covering-flush-shared-floor-static-compile-grouped-median-2026-12-07), which no earlier table was timed by,
# on the card the device tool gives for `nvidia-h200` (an H200 or an H100: the tool forbids asking for an
# H200 to match a card an issue names, so each table says its card, and suite_bench never mixes two cards).
# One call measures what its budget allows (BUDGET, default 575) and a later call continues it: copy the
# returned suite JSONs into .carry/gm-<card>/ (h200 or h100, carried) and run this again; it passes them with --from.
#   bash .carry/call_s45a.sh       (saves s45a.tgz to $OUT: the suites' JSON, .md and .log, gpu.txt)
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s45a; mkdir -p "$W/s" "$W/from"; LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in *H200*) slug=h200 ;; *H100*) slug=h100 ;; *) echo "neither an H200 nor an H100"; exit 4 ;; esac
echo "$card" > "$W/s/card.txt"
[ -d ".carry/gm-$slug" ] && cp ".carry/gm-$slug"/*.json "$W/from/" 2>/dev/null
OUT="$W/s" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) - 25 ))" --label "$LABEL" --jobs 3 --calibrate \
  --from "$W/from" suites/llm-inference suites/kernel-patterns > "$W/s/run.txt" 2>&1; echo "suites rc $?"
tail -n 4 "$W/s/run.txt"; save
for f in "$W"/s/*.json; do
  case "$f" in *calibration*) continue ;; esac
  python3 tools/suite_bench.py --render "$f" 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
done
echo "=== wall $(( $(date +%s) - T0 )) s"
