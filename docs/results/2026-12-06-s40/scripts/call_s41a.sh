#!/usr/bin/env bash
# session 41, call 1: whichever card comes. First the GPU correctness of session 40's three changed kernels.
# H200: kernel-patterns' last five operators into session 40's H200 results (--from .carry/h200), then
#       Nsight Compute on the H200's losing shapes beside torch.compile (tools/loser_profile.py).
# H100: Nsight Compute on the same operators' losing shapes in the H100 tables (.carry/h100-full).
set -uo pipefail
cd "$(dirname "$0")/.."
FINAL="$OUT"; W=/tmp/w41a; rm -rf "$W"; mkdir -p "$W/k" "$W/from" "$W/lp-kp" "$W/lp-llm"; T0=$(date +%s); LABEL=$(cat .carry/label)
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$W/card.txt"
if [ ! -f /tmp/site/.aka-wheels ]; then python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && touch /tmp/site/.aka-wheels; fi
export PYTHONPATH=/tmp/site:$PWD
# session 40's three kernels changed without a GPU: correctness on this card first
NEWK="conv1d_depthwise_causal/tap_loop_tile,histogram/private_slab_atomics,matmul_int4_grouped/scale_group_partials"
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "tap_loop_tile or private_slab_atomics or scale_group_partials" > "$W/pytest-new.txt" 2>&1; tail -n 3 "$W/pytest-new.txt"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/reference_kernels/test_int4_tf32x2_split.py > "$W/pytest-split.txt" 2>&1
tail -n 1 "$W/pytest-split.txt"
case "$card" in
  *H200*) RES=.carry/h200
          cp .carry/h200/*.json "$W/from/"
          # kernel-patterns' last five operators, then the three changed kernels into the same results
          OUT="$W/k" bash tools/h200_suite_bench.sh --budget-s 230 --label "$LABEL" --jobs 3 --from "$W/from" suites/kernel-patterns \
            > "$W/k/run.txt" 2>&1; echo "suite rc $?"; tail -n 2 "$W/k/run.txt"
          [ -f "$W/k/kernel-patterns.json" ] && cp "$W/k/kernel-patterns.json" "$W/from/"
          mkdir -p "$W/k2"; OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 150 --label "$LABEL" --jobs 1 --from "$W/from" \
            --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?"
          RESKP=$W/from/kernel-patterns.json; [ -f "$W/k2/kernel-patterns.json" ] && RESKP="$W/k2/kernel-patterns.json" ;;
  *) RES=.carry/h100-full; RESKP=$RES/kernel-patterns.json
     cp .carry/h100-full/*.json "$W/from/"
     mkdir -p "$W/k2"; OUT="$W/k2" bash tools/h200_suite_bench.sh --budget-s 150 --label "$LABEL" --jobs 1 --from "$W/from" \
       --kernels "$NEWK" suites/kernel-patterns > "$W/k2/run.txt" 2>&1; echo "kernels rc $?" ;;
esac
left=$(( 560 - ($(date +%s) - T0) ))
[ "$left" -lt 120 ] && { echo "no time left for the profiles"; tar czf "$FINAL/s41a.tgz" -C "$W" .; exit 0; }
KP_OPS="histogram,conv1d_depthwise_causal,matmul_int4_grouped,scatter_add_rows,cumsum_rows,max_pool_1d,reverse_rows,row_sum"
timeout $(( left * 6 / 10 )) python3 tools/loser_profile.py suites/kernel-patterns "$RESKP" --out "$W/lp-kp" \
  --ops "$KP_OPS" --below 1.0 --budget-s $(( left * 6 / 10 - 60 )) > "$W/lp-kp/run.txt" 2>&1; echo "lp kp rc $?"
left=$(( 560 - ($(date +%s) - T0) ))
timeout $(( left - 15 )) python3 tools/loser_profile.py suites/llm-inference $RES/llm-inference.json --out "$W/lp-llm" \
  --ops rmsnorm,bias_residual_add,layernorm,silu_and_mul --below 1.0 --budget-s $(( left - 75 )) > "$W/lp-llm/run.txt" 2>&1; echo "lp llm rc $?"
tar czf "$FINAL/s41a.tgz" -C "$W" .
echo "=== wall $(( $(date +%s) - T0 )) s"
for f in "$W/k/kernel-patterns.json" "$W/k2/kernel-patterns.json"; do [ -f "$f" ] && PYTHONPATH=. python3 tools/suite_bench.py --render "$f" --per-shape 2>/dev/null | grep -E "^Suite|^Operators at|^\| (conv1d_depthwise_causal|histogram|matmul_int4_grouped) \| torch"; done
for d in lp-kp lp-llm; do tail -n 14 "$W/$d/summary.md" 2>/dev/null | cut -c1-220; done
