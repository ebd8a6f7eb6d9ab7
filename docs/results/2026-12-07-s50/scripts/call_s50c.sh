#!/usr/bin/env bash
# Session 50: both suites measured from nothing on the card the device tool gives for `nvidia-h200`,
# the kernels chosen by earlier tables (`--winners`): at each operator, the kernels fastest at one of
# its shapes in the current H100 tables (docs/results/2026-12-07-s47/s47a/k1/llm-inference.json,
# docs/results/2026-12-07-s48/s48a/k2/kernel-patterns.json) or the last H200 tables, timed under the
# previous rule (2026-12-06-s40/suite-h200/llm-inference.json, 2026-12-07-s43/call2-suite-h200/
# kernel-patterns.json), and every kernel those lack. That is 121 of the 197 kernels, so the H200
# re-measure needs fewer calls than session 45's three. One call
# measures what its budget allows (BUDGET, default 575); a later call continues it: copy the returned
# suite JSONs into .carry/gw-<card>/ (h200 or h100, carried) and run this again (--from).
#   bash .carry/call_s50c.sh       (saves s50c.tgz to $OUT: the suites' JSON, .md and .log, gpu.txt)
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s50c; mkdir -p "$W/s" "$W/from"; LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"
case "$card" in *H200*) slug=h200 ;; *H100*) slug=h100 ;; *) echo "neither an H200 nor an H100"; exit 4 ;; esac
echo "$card" > "$W/s/card.txt"
[ -d ".carry/gw-$slug" ] && cp ".carry/gw-$slug"/*.json "$W/from/" 2>/dev/null
OUT="$W/s" bash tools/h200_suite_bench.sh --budget-s "$(( $(left) - 25 ))" --label "$LABEL" --jobs 3 --calibrate \
  --winners docs/results/2026-12-07-s47/s47a/k1/llm-inference.json \
  --winners docs/results/2026-12-07-s48/s48a/k2/kernel-patterns.json \
  --winners docs/results/2026-12-06-s40/suite-h200/llm-inference.json \
  --winners docs/results/2026-12-07-s43/call2-suite-h200/kernel-patterns.json \
  --from "$W/from" suites/llm-inference suites/kernel-patterns > "$W/s/run.txt" 2>&1; echo "suites rc $?"
tail -n 4 "$W/s/run.txt"; save
for f in "$W"/s/*.json; do
  case "$f" in *calibration*) continue ;; esac
  python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
done
echo "=== wall $(( $(date +%s) - T0 )) s"
