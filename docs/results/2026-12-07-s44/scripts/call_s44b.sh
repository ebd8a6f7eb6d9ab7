#!/usr/bin/env bash
# session 44's first call as run, after 9030113 moved the timing rule (grouped median on a clock's grid): an H200
# wanted (BUDGET seconds, default 575; saves s44b.tgz to $OUT after each step).
#  1. the graph timing's span grid (tools/span_grid_probe.py): are the CUPTI spans on a 0.25 µs grid here;
#  2. GPU correctness of rmsnorm/one_row_registers with its new points (STATIC_N, W_FIRST);
#  3. probes at issue 9's two shapes below torch.compile: rmsnorm llama3-70b-prefill-4k (the new points),
#     silu_and_mul llama3-8b-decode-1 (flat_1d's block sizes, now that graph figures are off the grid);
#  4. (steps 1-3 skipped with TUNER_ONLY=1, for the session's later calls on the other operators)
#     the tuner (issue 9) on OPS (default: rmsnorm silu_and_mul, the two with a shape below), MIN minutes each (default 1.2), with the rest.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
call_begin s44b; mkdir -p "$W/probe" "$W/tests" "$W/opt"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/tests/card.txt"
export PYTHONPATH="$PWD"; carried_wheels || exit 3
if [ -z "${TUNER_ONLY:-}" ]; then
timeout 60 python3 tools/span_grid_probe.py --out "$W/probe/spans.json" > "$W/probe/spans.txt" 2>&1; echo "spans rc $?"
tail -n 7 "$W/probe/spans.txt" | cut -c1-160; save
bash tools/device_kernel_tests.sh "$W/tests" "one_row_registers and rmsnorm and not fused_add" \
  tests/reference_kernels/test_one_row_registers_points.py tests/evaluate/test_timing.py > "$W/tests/run.txt" 2>&1
echo "tests rc $?"; tail -n 3 "$W/tests/run.txt"; save
harness_probe rms 100 8 suites/llm-inference/rmsnorm reference_kernels/rmsnorm/one_row_registers.py \
  --shape llama3-70b-prefill-4k --point NUM_WARPS=16,REREAD=1 --point NUM_WARPS=16,REREAD=1,STATIC_N=1 \
  --point NUM_WARPS=16,REREAD=1,STATIC_N=1,W_FIRST=1 --point NUM_WARPS=16,STATIC_N=1 --point NUM_WARPS=16,STATIC_N=1,W_FIRST=1 \
  --point NUM_WARPS=8,REREAD=1,STATIC_N=1
harness_probe silu 70 7 suites/llm-inference/silu_and_mul reference_kernels/silu_and_mul/flat_1d.py \
  --shape llama3-8b-decode-1 --point BLOCK=512,NUM_WARPS=4 --point BLOCK=1024,NUM_WARPS=4 --point BLOCK=512,NUM_WARPS=2 \
  --point BLOCK=4096,NUM_WARPS=8 --point BLOCK=1024,NUM_WARPS=2
fi
case "$card" in *H200*) ;; *) echo "not an H200: issue 9's tuner run wants one"; exit 0 ;; esac
if [ "$(left)" -ge 200 ]; then
  tuner_step "$W/opt" "${MIN:-1.2}" ${OPS:-rmsnorm silu_and_mul}
  head -n 20 "$W/opt/optimize_bench.md" 2>/dev/null | cut -c1-200
fi
echo "=== wall $(( $(date +%s) - T0 )) s"
