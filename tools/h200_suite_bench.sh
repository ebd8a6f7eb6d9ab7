#!/usr/bin/env bash
# On a lent H200 (device tool), from the repository root: tools/suite_bench.py over one or more
# suites, every reference kernel judged and timed against eager, torch.compile and the operator's
# production baseline. With as many GPUs as suites, each suite runs on its own GPU at the same time
# (the GPUs CUDA_VISIBLE_DEVICES lists, else every GPU); otherwise the suites run one after another
# on the first of them, inside the same budget.
#
#   bash tools/h200_suite_bench.sh [--budget-s S] [--from DIR] [--ops A,B] [--label L] [--calibrate]
#                                  [--redo] [--match-baselines] [--kernels OP/K,...] [--method graph|events]
#                                  [--interleave] [--jobs N] [--winners F]... SUITE...
#
#   --budget-s S   wall budget of this script (default 540): no operator starts after S-120 s (a suite
#                  that cannot start in sequence is named on stderr and the script exits 1), and
#                  whatever still runs at S is stopped (its finished kernels are kept, the operator marked partial, and --from continues it)
#   --from DIR     earlier calls' results (DIR/<suite>.json, carried into the working tree): the
#                  suite continues where they stopped
#   --ops A,B      only these operators (in every suite that has them)
#   --calibrate    `aka doctor --calibrate` first, so decode shapes get launch-adjusted SOL
#   --redo         measure the --ops operators again though --from holds them (new kernels)
#   --kernels A/B,C/D  measure only these op/kernel files (new or changed) into the carried results
#   --match-baselines  measure no kernel: time the baselines the carried rows lack for their own
#                  timing method (results from before suite_bench matched every kernel)
#   --method M     time every kernel and its baselines by M (graph or events) at every shape: an A/B
#                  of the harness's rule (use a fresh --from folder: results timed one way never mix)
#   --interleave   every kernel timed with its own baselines, twice per shape in mirrored order (a
#                  drifting clock weighs on both sides; use a fresh --from folder)
#   --jobs N       N operators of a suite measured at once, each by its own worker pool; their
#                  timings take turns on the GPU (one lock), compiles and checks overlap
#   --winners F    (repeatable) another run's results file, e.g. the other card's table: at each
#                  operator it holds, only the kernels fastest at one of its shapes there and those it
#                  lacks are measured (suite_bench --winners; a file of another suite is ignored)
#   --label L      recorded with every operator (default: the device copy's git HEAD, which can lag
#                  the working tree: pass the commit)
#
# Carry .whl (installed into /tmp/site when present). $OUT gets gpu.txt and, per suite,
# <suite>.json, <suite>.md and <suite>.log: 7 files for two suites, 8 with --calibrate.
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
budget=540 from="" ops="" label="" calibrate=0 extra=() suites=()
while [ $# -gt 0 ]; do
  case "$1" in
    --budget-s) budget="$2"; shift 2 ;;
    --from) from="$2"; shift 2 ;;
    --ops) ops="$2"; shift 2 ;;
    --label) label="$2"; shift 2 ;;
    --calibrate) calibrate=1; shift ;;
    --redo|--match-baselines|--interleave) extra+=("$1"); shift ;;
    --kernels|--method|--jobs|--winners) extra+=("$1" "$2"); shift 2 ;;
    -*) echo "h200_suite_bench.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    *) suites+=("${1%/}"); shift ;;
  esac
done
: "${OUT:?set OUT to the folder that receives the results}"
[ ${#suites[@]} -gt 0 ] || { echo "h200_suite_bench.sh: name at least one suite folder" >&2; exit 2; }
for s in "${suites[@]}"; do [ -d "$s" ] || { echo "no suite folder $s" >&2; exit 2; }; done
case "$budget" in ''|*[!0-9]*) echo "--budget-s: expected whole seconds, got '$budget'" >&2; exit 2 ;; esac
[ "$budget" -ge 130 ] || { echo "--budget-s $budget: below 130 s no operator could start (none starts after S-120 s)" >&2; exit 2; }
[ -z "$from" ] || [ -d "$from" ] || { echo "--from: no folder $from" >&2; exit 2; }
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 AKA_CACHE_DIR="${AKA_CACHE_DIR:-/tmp/aka-cache}"
. tools/device_site.sh
carried_wheels || exit 3
nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" \
  || { echo "no GPU (nvidia-smi failed)" >&2; exit 3; }
label="${label:-$(git rev-parse --short HEAD 2>/dev/null)}"
echo "commit $label" >> "$OUT/gpu.txt"
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then gpus=(${CUDA_VISIBLE_DEVICES//,/ }); else
  mapfile -t gpus < <(seq 0 $(($(wc -l < "$OUT/gpu.txt") - 3))); fi
[ "$calibrate" = 1 ] && { python3 -m aka doctor --calibrate --json > "$OUT/calibration.json" 2>&1 \
  || echo "aka doctor --calibrate failed (calibration.json says why); SOL stays unadjusted" >&2; }

run_suite() {  # suite gpu stop-after
  local name; name=$(basename "$1")
  [ -n "$from" ] && [ -f "$from/$name.json" ] && cp "$from/$name.json" "$OUT/$name.json"
  CUDA_VISIBLE_DEVICES="$2" timeout --signal=TERM --kill-after=10 $((budget - ($(date +%s) - T0) - 5)) \
    python3 tools/suite_bench.py "$1" --out "$OUT/$name.json" --markdown "$OUT/$name.md" \
    --stop-after-s "$3" --label "$label" ${ops:+--ops "$ops"} "${extra[@]}" >> "$OUT/$name.log" 2>&1
  echo "$name: exit $? after $(($(date +%s) - T0)) s (gpu $2)" | tee -a "$OUT/gpu.txt"
}

if [ ${#gpus[@]} -ge ${#suites[@]} ]; then
  i=0
  for s in "${suites[@]}"; do run_suite "$s" "${gpus[$i]}" $((budget - 120 - ($(date +%s) - T0))) & i=$((i + 1)); done
  wait
else
  for s in "${suites[@]}"; do
    left=$((budget - 120 - ($(date +%s) - T0)))
    if [ "$left" -le 0 ]; then  # the earlier suites used the start window: say so, do not pass a spent budget on
      echo "$(basename "$s"): not started, nothing measured: the start cut-off (S-120 s = $((budget - 120)) s) passed" \
        "while the suites before it ran; give it its own call or a larger --budget-s" | tee -a "$OUT/gpu.txt" >&2
      not_started=1
      continue
    fi
    run_suite "$s" "${gpus[0]}" "$left"
  done
fi
for s in "${suites[@]}"; do
  name=$(basename "$s")
  [ -f "$OUT/$name.json" ] && python3 tools/suite_bench.py --render "$OUT/$name.json" > "$OUT/$name.md"
  [ -f "$OUT/$name.log" ] && tail -n 1 "$OUT/$name.log"
done
[ "${not_started:-0}" = 0 ] || exit 1
