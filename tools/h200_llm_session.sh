#!/usr/bin/env bash
# One `aka optimize --model` session end to end through a scripted OpenAI-compatible server on
# 127.0.0.1 that replays recorded model replies (tools/llm_replies/rmsnorm/, one Markdown file per
# reply, in name order): the LLM proposer's path on the GPU with Nsight Compute's profile summary
# and the in-memory knowledge base (hash embedder) in the prompts. Run from the repository root:
#
#   bash tools/h200_llm_session.sh [ITERATIONS] [more `aka optimize` options...]
#
# On the device machine it first installs the carried wheels (.whl/, .whl-llm/; either may be
# absent when an earlier call of a warm machine installed it into /tmp/site). Both together exceed a
# call's 64 MiB: `tools/device_wheels.py .whl-llm --llm --with-gpu-path` builds one folder of about
# 55 MB that carries everything (how the 2026-12-04 H200 session ran). Environment:
#   OUT         where the results go (the device tool sets it; default /tmp/aka-llm-session)
#   PYTHON      the interpreter (default python3)
#   AKA_WHEELS  0: install nothing (a machine with everything installed, e.g. the CPU test)
#   AKA_LLM_OP, AKA_LLM_REPLIES, AKA_LLM_MODEL  operator, replies, model name (defaults below)
# Results in $OUT (at most 8 files, as the device tool returns them): summary.md (the tables),
# optimize.json (`--json`), optimize.log (stderr), report.md, events.jsonl, env.txt, and
# session.tgz (the whole session: candidates/, llm/NNNN.json calls, best/, profiles, memory/,
# and the server's own request log).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/aka-llm-session}"
PY="${PYTHON:-python3}"
iterations="${1:-9}"
shift $(($# > 0 ? 1 : 0))
op="${AKA_LLM_OP:-suites/llm-inference/rmsnorm}"
replies="${AKA_LLM_REPLIES:-tools/llm_replies/rmsnorm}"
model="${AKA_LLM_MODEL:-qwen2.5-coder-32b-instruct}"
mkdir -p "$OUT"
work="$(mktemp -d /tmp/aka-llm.XXXXXX)"

if [ "${AKA_WHEELS:-1}" != "0" ]; then
  wheels=$(ls .whl/*.whl .whl-llm/*.whl 2>/dev/null)
  if [ -n "$wheels" ]; then
    # shellcheck disable=SC2086
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site $wheels \
      || { echo "error: installing the carried wheels failed" >&2; exit 3; }
  fi
  export PYTHONPATH="/tmp/site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
else
  export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1 AKA_CACHE_DIR="${AKA_CACHE_DIR:-$work/cache}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
missing=$("$PY" - <<'EOF'
import importlib.util
print(" ".join(m for m in ("litellm", "openai", "langgraph", "optuna", "pydantic", "rank_bm25", "yaml")
               if importlib.util.find_spec(m) is None))
EOF
)
if [ -n "$missing" ]; then
  echo "error: missing Python packages: $missing (carry them as wheels in .whl/ or .whl-llm/)" >&2
  exit 3
fi

{
  date -u +"%Y-%m-%d %H:%M UTC"
  git rev-parse --short HEAD 2>/dev/null || echo "commit unknown"
  if command -v nvidia-smi >/dev/null; then
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>&1
  else
    echo "nvidia-smi: not on PATH"
  fi
  if command -v ncu >/dev/null; then ncu --version | tail -1; else echo "ncu: not on PATH"; fi
  "$PY" -c "import sys, torch, triton, litellm; from importlib.metadata import version as v; print(sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'litellm', v('litellm'))" 2>&1 | tail -1
} > "$OUT/env.txt"

"$PY" -m aka.propose.scripted_server "$replies" --port-file "$work/port" --requests "$work/server_requests.jsonl" \
  2> "$work/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null' EXIT
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.2; done
if [ ! -s "$work/port" ]; then
  echo "error: the scripted server did not start:" >&2; cat "$work/server.log" >&2; exit 3
fi
port=$(cat "$work/port")

t0=$SECONDS
"$PY" -m aka optimize "$op" --model "openai/$model" --api-base "http://127.0.0.1:$port/v1" \
  --iterations "$iterations" --stall 8 --kb memory --embedder hash --sessions-dir "$work/sessions" --json "$@" \
  > "$OUT/optimize.json" 2> "$OUT/optimize.log"
rc=$?
wall=$((SECONDS - t0))
kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
cat "$work/server.log" >> "$OUT/env.txt"
echo "aka optimize: exit $rc after ${wall} s" >> "$OUT/env.txt"

session=$(ls -d "$work"/sessions/*/ 2>/dev/null | head -1)
if [ -z "$session" ]; then
  echo "error: no session folder (aka optimize exit $rc):" >&2; tail -20 "$OUT/optimize.log" >&2; exit "${rc:-1}"
fi
session="${session%/}"
cp "$work/server_requests.jsonl" "$session/server_requests.jsonl" 2>/dev/null
cp "$session/events.jsonl" "$OUT/events.jsonl"
cp "$session/report.md" "$OUT/report.md" 2>/dev/null
tar czf "$OUT/session.tgz" -C "$(dirname "$session")" --exclude checkpoint.sqlite "$(basename "$session")"
if [ "$(stat -c %s "$OUT/session.tgz")" -gt $((15 * 1024 * 1024)) ]; then   # the device returns files up to 16 MiB
  tar czf "$OUT/session.tgz" -C "$(dirname "$session")" --exclude checkpoint.sqlite --exclude '*.ncu-rep' \
    "$(basename "$session")"
  echo "session.tgz: the profiler's .ncu-rep files left out (over 15 MiB with them)" >> "$OUT/env.txt"
fi

"$PY" tools/llm_session_summary.py "$session" --json "$OUT/optimize.json" --requests "$work/server_requests.jsonl" \
  > "$OUT/summary.md"
leak=$?
requests=$(grep -c . "$work/server_requests.jsonl" 2>/dev/null || echo 0)
printf '\naka optimize: exit %s after %s s; %s requests reached the scripted server\n' "$rc" "$wall" "$requests" \
  >> "$OUT/summary.md"
rm -rf "$work"
cat "$OUT/summary.md"
[ "$leak" -eq 1 ] && exit 1
exit "$rc"
