#!/usr/bin/env bash
# On a lent H200 (device tool), from the repository root: `aka batch` over suites/kernelbench-large in
# eval mode with its Triton candidates, then `aka report`; everything lands in $OUT and a markdown
# table (per problem, then the suite's scores) is printed last.
#
#   bash tools/h200_kernelbench_batch.sh [--budget-s 540] [--eval-timeout 180] [--only A,B] [--resume]
#                                        [--calibrate] [--cpu-smoke]
#
#   --budget-s S      wall-clock budget of this whole script (default 540): the batch is stopped in
#                     time for the report, and operators it did not reach stay pending
#   --eval-timeout S  time limit of one problem's aka eval (default 180)
#   --only A,B        run only these problems (a suite of links to them under /tmp)
#   --resume          continue the newest run under the sessions folder (its finished problems are
#                     kept): a second call finishes what the budget cut off
#   --ncu A,B         then Nsight Compute over these problems' candidates (a driver that builds the
#                     inputs on the GPU), set against the batch's aka times: ncu.md, ncu/ncu.json
#                     (the batch keeps --ncu-reserve seconds, default 60, back for it)
#   --calibrate       aka doctor --calibrate first (launch-adjusted SOL; costs device time)
#   --cpu-smoke       no GPU: the same steps on the suite at CPU sizes (tools/kernelbench_check.py
#                     --small-suite, in $KB_SMALL_DIR when set, else a temporary folder) with
#                     Triton-interpreter workers; checks this script, measures nothing
#
# Carry .whl (pydantic, langgraph, optuna and what they need): installed into /tmp/site when present.
# Runs live in $AKA_KB_SESSIONS (default /tmp/aka-kb-sessions). The device returns at most 8 files a
# call, so $OUT gets at most 7: gpu.txt (with the commit), command.txt, scoreboard.json (copied every
# 5 s while the batch runs), report.md, table.md, ncu.md (with --ncu) and details.tgz (batch.json,
# the logs, report.json, report.html, plots/, calibration.json, ncu/ and run.tgz, the run folder),
# written on the way out even when the batch was stopped.
set -uo pipefail
cd "$(dirname "$0")/.."
T0=$(date +%s)
budget=540 evt=180 only="" resume=0 calibrate=0 smoke=0 ncu="" ncu_reserve=60
while [ $# -gt 0 ]; do
  case "$1" in
    --budget-s) budget="$2"; shift 2 ;;
    --eval-timeout) evt="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --ncu) ncu="$2"; shift 2 ;;
    --ncu-reserve) ncu_reserve="$2"; shift 2 ;;
    --resume) resume=1; shift ;;
    --calibrate) calibrate=1; shift ;;
    --cpu-smoke) smoke=1; shift ;;
    *) echo "h200_kernelbench_batch.sh: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
  esac
done
elapsed() { echo $(( $(date +%s) - T0 )); }

if [ "$smoke" = 1 ]; then
  OUT="${OUT:-$(mktemp -d /tmp/kb-smoke-out-XXXXXX)}"
  SESSIONS="${AKA_KB_SESSIONS:-$(mktemp -d /tmp/kb-smoke-sessions-XXXXXX)}"
  PY="${PYTHON:-python3}"
else
  : "${OUT:?set OUT to the folder that receives the results}"
  SESSIONS="${AKA_KB_SESSIONS:-/tmp/aka-kb-sessions}"
  PY=python3
fi
RESULT="$OUT"                                # what comes back: a few files (see the header)
OUT=$(mktemp -d /tmp/aka-kb-out-XXXXXX)       # everything, staged
mkdir -p "$RESULT" "$SESSIONS"
small=""
collect() {
  for f in gpu.txt command.txt scoreboard.json report.md table.md ncu.md; do
    [ -f "$OUT/$f" ] && cp "$OUT/$f" "$RESULT/"
  done
  [ -f "$OUT/commit.txt" ] && cat "$OUT/commit.txt" >> "$RESULT/gpu.txt"
  tar czf "$RESULT/details.tgz" -C "$OUT" --exclude=gpu.txt --exclude=command.txt --exclude=scoreboard.json \
    --exclude=report.md --exclude=table.md --exclude=ncu.md . 2>/dev/null
  rm -rf "$OUT"
  [ -n "$small" ] && [ -z "${KB_SMALL_DIR:-}" ] && rm -rf "$small"
  return 0
}
trap collect EXIT
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1 AKA_CACHE_DIR=/tmp/aka-cache
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
if [ "$smoke" = 0 ] && compgen -G ".whl/*.whl" > /dev/null; then
  . tools/device_site.sh
  carried_wheels || exit 3     # once per machine (its message on stderr)
elif [ "$smoke" = 0 ]; then
  echo "no .whl/*.whl carried: going on with what python3 has (a typer that needs pydantic will fail)" >&2
fi

SUITE=suites/kernelbench-large CANDS=suites/kernelbench-large/candidates
if [ "$smoke" = 1 ]; then
  small="${KB_SMALL_DIR:-}"               # set it to keep the small suite for a later --resume
  [ -n "$small" ] || small=$(mktemp -d /tmp/kb-small-XXXXXX)          # removed by collect
  SUITE=$("$PY" tools/kernelbench_check.py --small-suite "$small" ${only:+--only "$only"}) \
    || { echo "could not write the suite at CPU sizes" >&2; exit 2; }
  CANDS="$SUITE/candidates"
  WHERE=(--device cpu --cpu-workers 2)
else
  nvidia-smi --query-gpu=name,uuid,driver_version,memory.total,clocks.sm,clocks.mem --format=csv | tee "$OUT/gpu.txt"
  if [ -n "$only" ]; then                 # a suite of links: names and candidates as in the real one
    sub=$(mktemp -d /tmp/kb-only-XXXXXX); chmod 755 "$sub"
    for p in ${only//,/ }; do
      [ -f "$SUITE/$p.py" ] || { echo "--only: no problem $SUITE/$p.py" >&2; exit 2; }
      ln -s "$PWD/$SUITE/$p.py" "$sub/$p.py"
    done
    SUITE="$sub"
  fi
  WHERE=(--device cuda)
  if [ "$calibrate" = 1 ]; then
    "$PY" -m aka doctor --calibrate --json > "$OUT/calibration.json" 2> "$OUT/calibration.log" \
      || tail -5 "$OUT/calibration.log"
  fi
fi
git rev-parse HEAD > "$OUT/commit.txt" 2>/dev/null || true

if [ "$resume" = 1 ]; then
  RUN=$(ls -dt "$SESSIONS"/batch-* 2>/dev/null | head -1)
  [ -n "$RUN" ] || { echo "--resume: no run under $SESSIONS" >&2; exit 2; }
  CMD=("$PY" -m aka batch --resume "$RUN" --sessions-dir "$SESSIONS" "${WHERE[@]}" --json)
else
  CMD=("$PY" -m aka batch "$SUITE" --mode eval --candidates "$CANDS" --sessions-dir "$SESSIONS"
       --eval-timeout "$evt" "${WHERE[@]}" --json)
fi
reserve=40                                # aka report, copies and the table after the batch
[ -n "$ncu" ] && [ "$smoke" = 0 ] && reserve=$(( reserve + ncu_reserve ))
left=$(( budget - $(elapsed) - reserve ))
if [ "$left" -lt "${MIN_BATCH_S:-60}" ]; then
  echo "only ${left} s left of the ${budget} s budget for the batch: not starting it" >&2; exit 3
fi
echo "batch: ${CMD[*]}  (stopped after ${left} s)" | tee "$OUT/command.txt"
before=$(ls -d "$SESSIONS"/batch-* 2>/dev/null | sort)
timeout --signal=TERM --kill-after=10 "$left" "${CMD[@]}" > "$OUT/batch.json" 2> >(tee "$OUT/batch.log" >&2) &
bpid=$!
newest_run() {
  if [ "$resume" = 1 ]; then echo "$RUN"; return; fi
  comm -13 <(echo "$before") <(ls -d "$SESSIONS"/batch-* 2>/dev/null | sort) | tail -1
}
while kill -0 "$bpid" 2>/dev/null; do       # results as they come: the running scoreboard
  run=$(newest_run)
  [ -n "$run" ] && [ -f "$run/scoreboard.json" ] && cp "$run/scoreboard.json" "$RESULT/scoreboard.json" 2>/dev/null
  sleep 5
done
wait "$bpid"; rc=$?
[ "$rc" = 124 ] && echo "the batch was stopped at the budget (${left} s); what it did not reach is pending: run again with --resume" >&2
RUN=$(newest_run)
if [ -z "$RUN" ] || [ ! -f "$RUN/scoreboard.json" ]; then
  echo "no run folder with a scoreboard under $SESSIONS (batch exit $rc)" >&2; tail -20 "$OUT/batch.log" >&2
  case "$rc" in 2|3) exit "$rc" ;; *) exit 1 ;; esac
fi
"$PY" -m aka report "$RUN" --json > "$OUT/report.json" 2> "$OUT/report.log" || tail -5 "$OUT/report.log" >&2
cp "$RUN/scoreboard.json" "$OUT/"
for f in report.md report.html plots; do [ -e "$RUN/$f" ] && cp -r "$RUN/$f" "$OUT/"; done
tar czf "$OUT/run.tgz" -C "$(dirname "$RUN")" "$(basename "$RUN")"
"$PY" tools/kernelbench_check.py --batch-table "$RUN" > "$OUT/table.md"
if [ -n "$ncu" ] && [ "$smoke" = 0 ]; then
  nleft=$(( budget - $(elapsed) - 5 ))
  if [ "$nleft" -ge 30 ]; then
    "$PY" tools/kernelbench_check.py "$OUT/ncu" --ncu-against "$RUN" --only "$ncu" --budget-s "$nleft" \
      > "$OUT/ncu.md" 2> "$OUT/ncu.log" || tail -5 "$OUT/ncu.log" >&2
  else
    echo "ncu: only ${nleft} s left, not run" > "$OUT/ncu.md"
  fi
fi
echo "run $RUN, batch exit $rc, script wall $(elapsed) s (budget ${budget} s)"
echo
cat "$OUT/table.md"
[ -f "$OUT/ncu.md" ] && { echo; cat "$OUT/ncu.md"; }
[ "$rc" = 0 ] || [ "$rc" = 1 ] && exit "$rc"
exit 1
