#!/usr/bin/env bash
# The next session's first call (saves s50a.tgz to $OUT; BUDGET seconds, default 560). Branches on the
# card the device tool gives:
#  - an H200: issue 9's tuner over its six operators, 0.9 minutes each (call_s49a.sh's H200 branch,
#    not run in session 49); the probes then go in call_s50b.sh if the machine stays warm;
#  - an H100: first the three kernel-patterns operators no table under the current rule has
#    (transpose_2d, vector_norm_l2, top_k_rows' packed_key_sort) into session 48's table (--from, so
#    the table becomes 34 of 34); then the probes that session 49's offline sm_90 screen chose
#    (docs/benchmarks.md, "Session 49"): gemv_transposed against cuBLAS timed interleaved, the int4
#    GEMM's wave-balancing tiles at its prefill shape, and the batched_matmul store path.
# Carry .carry (this script, call_s49a.sh, call_s50b.sh, call_s45a.sh, call_s48b.sh, label) and .whl.
set -uo pipefail
cd "$(dirname "$0")/.."
. tools/device_site.sh
T_START=$(date +%s)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
# Session 49 changed the judge without a GPU (timed-output, output-subclass, version counters moved
# on before each timed call, a stricter review): the honest fixture kernel and its three new cheats
# on this GPU first, about a minute, into $OUT/judge49.txt. Expected: ACCEPTED; CHEAT output-subclass
# (or no-device-work); ACCEPTED, timed about as the honest one; CHEAT timed-output.
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
carried_wheels || exit 3               # aka's CLI needs the carried wheels (pydantic) on this image
for c in honest_rmsnorm cheat_lazy_subclass cheat_version_keyed_cache cheat_call_counting cheat_fingerprint_cache \
    cheat_fingerprint_fast_batch; do
  echo "== $c"; timeout 120 python3 -m aka eval tests/evaluate/fixtures/rmsnorm tests/evaluate/candidates/$c.py \
    --device cuda 2>&1 | grep -E "^│|verdict|rejected" | cut -c1-160
done > "${OUT:?set OUT}/judge49.txt" 2>&1
cat "$OUT/judge49.txt"
# the judge changed without a GPU: an honest kernel it does not accept stops the call here
awk '/^== /{c=$2} /^verdict/{print c, $2}' "$OUT/judge49.txt" | grep -qx "honest_rmsnorm ACCEPTED" || {
  echo "the honest fixture kernel was not accepted on this GPU: stopping before the long runs"; exit 5; }
case "$card" in
  *H200*) BUDGET=$(( ${BUDGET:-560} - $(date +%s) + T_START - 10 )) exec bash .carry/call_s49a.sh ;;
  *H100*) ;;
  *) echo "card: '${card:-none}': neither an H200 nor an H100"; exit 4 ;;
esac
BUDGET=$(( ${BUDGET:-560} - $(date +%s) + T_START - 10 )); call_begin s50a; LABEL=$(cat .carry/label)
call_env || exit 3
K=suites/kernel-patterns; R=reference_kernels; mkdir -p "$W/k2" "$W/from2"
cp docs/results/2026-12-07-s48/s48a/k2/kernel-patterns.json "$W/from2/"
OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 270 --label "$LABEL" --jobs 3 --from "$W/from2" \
  --ops transpose_2d,vector_norm_l2,top_k_rows $K > "$W/k2/run.txt" 2>&1
echo "kernel-patterns rc $?"; rm -rf "$W/from2"; save
PYTHONPATH=. python3 tools/suite_bench.py --render "$W/k2/kernel-patterns.json" 2>/dev/null | grep -E "^Suite|^Operators at" | cut -c1-200
harness_probe gemvt 80 8 $K/gemv_transposed $R/gemv_transposed/split_k_fused_finalize.py \
  --shape gpt2-xl-mlp-up-1600x6400 --shape llama3-8b-up-4096x14336 --point BLOCK_K=32
harness_probe int4 90 8 $K/matmul_int4_grouped $R/matmul_int4_grouped/scale_group_partials.py \
  --shape llama3-8b-qproj-prefill-512x4096x4096-g128 --point BLOCK_N=32 --point BLOCK_K=64 \
  --point BLOCK_M=128,NUM_WARPS=8
harness_probe bmm 70 6 $K/batched_matmul $R/batched_matmul/tma_batched.py --shape attn-scores-32h-2048 \
  --point STORE_SPLIT=1,STORE_STAGES=4 --point STORE_SPLIT=1,STORE_BLOCK_K=128,STORE_STAGES=2 --point GROUP_M=16
echo "=== wall $(( $(date +%s) - T0 )) s"
