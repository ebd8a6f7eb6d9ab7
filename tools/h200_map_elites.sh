#!/usr/bin/env bash
# Issue 15 on a lent H200 (device tool): map-elites against the greedy loop at the same evaluation
# budget with the embedded tuner, then the shape-bucketed parameter search against exhaustive
# search, for three suite operators. Results and sessions land in $OUT; the two short tables are
# printed last. Run from the repository root on the device machine, with the wheels in .whl/:
#   bash tools/h200_map_elites.sh [ITERATIONS] [OP ...]      (defaults: 6; rmsnorm softmax silu_and_mul)
# Budget (about 500 s for three operators): per session at most 1 minute (--time-limit), 3 shapes
# per operator (the heaviest, a decode one kept); the parameter table compiled in 12 processes for
# at most 60 s, then at most 40 s of timing per operator, the whole search cut at
# $PARAM_SEARCH_LIMIT_S (240 s). Results are copied to $OUT after each step.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to the folder for the results}"
# The device returns at most 8 files a call: everything is written to a staging folder, then $OUT
# gets the two tables, their JSON, steps.txt and details.tgz (logs, sessions).
REAL_OUT="$OUT"
OUT=$(mktemp -d /tmp/aka-map-elites-XXXXXX)
iters="${1:-6}"
shift || true
ops=("$@")
[ ${#ops[@]} -eq 0 ] && ops=(rmsnorm softmax silu_and_mul)
t0=$SECONDS
export PYTHONPATH="$PWD"
. tools/device_site.sh
carried_wheels || exit 3       # once per machine: a warm machine's later calls skip pip
export PYTHONUNBUFFERED=1 AKA_CACHE_DIR=/tmp/aka-cache
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$OUT/gpu.txt" 2>&1
git rev-parse HEAD > "$OUT/commit.txt" 2>/dev/null

python3 tools/map_elites_bench.py "${ops[@]}" --iterations "$iters" --shapes-per-op 3 --time-limit 1.0 --reps 50 \
  --out "$OUT" --sessions-dir /tmp/sessions > "$OUT/map_elites.out" 2> "$OUT/map_elites.err"
rc1=$?
echo "map-elites vs greedy: rc=$rc1 after $((SECONDS - t0)) s" | tee "$OUT/steps.txt"
save() {   # into $REAL_OUT now, so a call cut short by its time limit still returns what is done
  for f in map_elites.md map_elites.json param_search.md param_search.json steps.txt; do
    [ -f "$OUT/$f" ] && cp "$OUT/$f" "$REAL_OUT/"
  done
  tar czf "$OUT/sessions.tgz" -C /tmp sessions 2>/dev/null
  tar czf "$REAL_OUT/details.tgz" -C "$OUT" .
}
save

timeout "${PARAM_SEARCH_LIMIT_S:-240}" python3 tools/param_search_bench.py "${ops[@]}" --device cuda --max-configs 24 \
  --time-budget 40 --compile-budget 60 --jobs 12 --seeds 5 --out "$OUT" > "$OUT/param_search.out" 2> "$OUT/param_search.err"
rc2=$?
echo "parameter search vs exhaustive: rc=$rc2 after $((SECONDS - t0)) s" | tee -a "$OUT/steps.txt"

save
for f in map_elites.err param_search.err; do
  [ -s "$OUT/$f" ] && { echo "--- tail of $f"; tail -5 "$OUT/$f"; }
done
echo
echo "## map-elites against greedy (same candidates evaluated; tuner)"
cat "$OUT/map_elites.md" 2>/dev/null || echo "(no table)"
echo
echo "## evaluations to reach the exhaustive best (within 2 %); held-out slowdowns"
cat "$OUT/param_search.md" 2>/dev/null || echo "(no table)"
[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]
