#!/usr/bin/env bash
# On a lent H200 (device tool), from the repository root: `aka batch SUITE --mode optimize` with the
# embedded tuner, then `aka report`. Calls of the device tool are at most 10 minutes, so the batch
# is stopped at --budget-s and a later call on the same (still warm) machine continues it with
# --resume; operators it finished are kept.
#
#   bash tools/h200_suite_batch.sh [SUITE] [--time-limit MIN] [--iterations N] [--budget-s S]
#                                  [--only A,B] [--resume] [--device cpu]
#
#   SUITE            default suites/llm-inference
#   --time-limit M   minutes per operator (default 0.5); --iterations N: candidates per operator
#   --budget-s S     wall budget of this script (default 540); the report needs the last 40 s
#   --only A,B       only these operators (a suite of links to them, with the suite's suite.yaml)
#   --resume         continue the newest run under $AKA_BATCH_SESSIONS (default /tmp/aka-batch)
#   --resume-from F  continue the run in F, an earlier call's run.tgz carried into the working tree
#                    (the machine was handed back between calls, and its /tmp with it)
#   --device cpu     no GPU: Triton-interpreter workers (checks this script; measures nothing)
#   --calibrate      `aka doctor --calibrate` first (cached per GPU model under AKA_CACHE_DIR), so the
#                    scoreboard has launch-adjusted SOL for decode shapes; about half a minute, and
#                    calibration.json is a seventh file in $OUT
#
# Carry .whl (installed into /tmp/site when present). $OUT gets at most 6 files: gpu.txt,
# command.txt, batch.log, scoreboard.json (copied every 5 s while the batch runs), report.md and
# run.tgz (the run folder with its sessions, report.html and plots).
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
suite=suites/llm-inference limit=0.5 iters="" budget=540 only="" resume=0 device=cuda from="" calibrate=0
while [ $# -gt 0 ]; do
  case "$1" in
    --time-limit) limit="$2"; shift 2 ;;
    --iterations) iters="$2"; shift 2 ;;
    --budget-s) budget="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --resume) resume=1; shift ;;
    --resume-from) resume=1; from="$2"; shift 2 ;;
    --device) device="$2"; shift 2 ;;
    --calibrate) calibrate=1; shift ;;
    -*) echo "h200_suite_batch.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    *) suite="$1"; shift ;;
  esac
done
: "${OUT:?set OUT to the folder that receives the results}"
SESSIONS="${AKA_BATCH_SESSIONS:-/tmp/aka-batch}"
mkdir -p "$OUT" "$SESSIONS"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 AKA_CACHE_DIR="${AKA_CACHE_DIR:-/tmp/aka-cache}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
PY="${PYTHON:-python3}"
. tools/device_site.sh
if [ "$device" = cuda ]; then
  carried_wheels || exit 3
else                                           # on the CPU nothing is installed, only what is there used
  site_on_path
fi
[ -d "$suite" ] || { echo "no suite folder $suite" >&2; exit 2; }
if [ -n "$only" ]; then
  sub=$(mktemp -d /tmp/aka-suite-XXXXXX); chmod 755 "$sub"; trap 'rm -rf "$sub"' EXIT
  [ -f "$suite/suite.yaml" ] && cp "$suite/suite.yaml" "$sub/"
  for op in ${only//,/ }; do
    [ -f "$suite/$op/op.yaml" ] || { echo "--only: no operator $suite/$op" >&2; exit 2; }
    ln -s "$PWD/$suite/$op" "$sub/$op"
  done
  suite="$sub"
fi
if [ "$device" = cuda ]; then
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt"
  WHERE=(--device cuda)
  if [ "$calibrate" = 1 ]; then
    "$PY" -m aka doctor --calibrate --json > "$OUT/calibration.json" 2>> "$OUT/batch.log" \
      || echo "aka doctor --calibrate failed (see batch.log); SOL stays unadjusted" >&2
  fi
else
  WHERE=(--device cpu --cpu-workers 2)
fi
git rev-parse HEAD >> "$OUT/gpu.txt" 2>/dev/null || true
if [ -n "$from" ]; then
  [ -f "$from" ] || { echo "--resume-from: no file $from" >&2; exit 2; }
  name=$(tar tzf "$from" | head -1 | cut -d/ -f1)
  case "$name" in batch-*) ;; *) echo "--resume-from: $from does not hold a batch-* run folder" >&2; exit 2 ;; esac
  [ -e "$SESSIONS/$name" ] && { echo "--resume-from: $SESSIONS/$name already exists; use --resume" >&2; exit 2; }
  tar xzf "$from" -C "$SESSIONS" && touch "$SESSIONS/$name" || { echo "--resume-from: cannot unpack $from" >&2; exit 2; }
fi
if [ "$resume" = 1 ]; then
  RUN=$(ls -dt "$SESSIONS"/batch-* 2>/dev/null | head -1)
  [ -n "$RUN" ] || { echo "--resume: no run under $SESSIONS" >&2; exit 2; }
  CMD=("$PY" -m aka batch --resume "$RUN" --sessions-dir "$SESSIONS" "${WHERE[@]}" --json)
else
  CMD=("$PY" -m aka batch "$suite" --mode optimize --time-limit "$limit" ${iters:+--iterations "$iters"}
       --sessions-dir "$SESSIONS" "${WHERE[@]}" --json)
fi
left=$(( budget - ($(date +%s) - T0) - 40 ))
[ "$left" -ge 60 ] || { echo "only ${left} s left of the ${budget} s budget: not starting" >&2; exit 3; }
echo "${CMD[*]}  (stopped after ${left} s)" | tee "$OUT/command.txt"
before=$(ls -d "$SESSIONS"/batch-* 2>/dev/null | sort)
timeout --signal=TERM --kill-after=15 "$left" "${CMD[@]}" > "$SESSIONS/batch.json" 2>> "$OUT/batch.log" &
bpid=$!
newest_run() {
  if [ "$resume" = 1 ]; then echo "$RUN"; return; fi
  comm -13 <(echo "$before") <(ls -d "$SESSIONS"/batch-* 2>/dev/null | sort) | tail -1
}
while kill -0 "$bpid" 2>/dev/null; do
  run=$(newest_run)
  [ -n "$run" ] && [ -f "$run/scoreboard.json" ] && cp "$run/scoreboard.json" "$OUT/scoreboard.json" 2>/dev/null
  sleep 5
done
wait "$bpid"; rc=$?
[ "$rc" = 124 ] && echo "stopped at the budget (${left} s): call again with --resume for the rest" | tee -a "$OUT/command.txt"
RUN=$(newest_run)
if [ -z "$RUN" ] || [ ! -f "$RUN/scoreboard.json" ]; then
  echo "no run folder with a scoreboard under $SESSIONS (batch exit $rc)" >&2; tail -20 "$OUT/batch.log" >&2
  exit 1
fi
"$PY" -m aka report "$RUN" > /dev/null 2>> "$OUT/batch.log" || echo "aka report failed (see batch.log)" >&2
cp "$RUN/scoreboard.json" "$OUT/"
[ -f "$RUN/report.md" ] && cp "$RUN/report.md" "$OUT/"
tar czf "$OUT/run.tgz" -C "$(dirname "$RUN")" "$(basename "$RUN")"
echo "run $RUN, batch exit $rc, script wall $(( $(date +%s) - T0 )) s"
[ -f "$OUT/report.md" ] && head -60 "$OUT/report.md"
[ "$rc" = 0 ] || [ "$rc" = 1 ]
