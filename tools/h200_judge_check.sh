#!/usr/bin/env bash
# The judge on the H200 (issue 10): the confined candidate process, verdicts and timings with the
# GPU, then the KernelBench problems at their published sizes. Run from the repository root on the
# device machine:  bash tools/h200_judge_check.sh "$OUT" [--quick]
set -uo pipefail
out="${1:?usage: tools/h200_judge_check.sh OUT_DIR [--quick]}"
mode="${2:-}"
mkdir -p "$out"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1

step() {  # name, command...: run, keep its output, say how it went
  local name="$1"; shift
  local t0=$SECONDS
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  local rc=$?
  printf '%-28s rc=%-3s %4ss\n' "$name" "$rc" "$((SECONDS - t0))" | tee -a "$out/steps.txt"
}

step doctor python3 -m aka doctor --json
step eval_rmsnorm python3 -m aka eval suites/llm-inference/rmsnorm \
  reference_kernels/rmsnorm/one_row_registers.py --json
step eval_softmax python3 -m aka eval suites/llm-inference/softmax \
  reference_kernels/softmax/online_two_pass.py --json
step cheat_fallback python3 -m aka eval tests/evaluate/fixtures/rmsnorm \
  tests/evaluate/candidates/cheat_torch_fallback.py --json --device cuda
if [ "$mode" != "--quick" ]; then
  step kernelbench python3 tools/kernelbench_check.py "$out/kernelbench" --budget-s 420
fi

python3 - "$out" <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
print("\n| job | status | shapes timed | first rejection | peak GPU bytes (judge / candidate) | wall s |")
print("|---|---|---|---|---|---|")
for name in ("eval_rmsnorm", "eval_softmax", "cheat_fallback"):
    try:
        doc = json.loads((out / f"{name}.out").read_text())
    except Exception as exc:  # noqa: BLE001
        print(f"| {name} | unreadable ({type(exc).__name__}) | | {(out / f'{name}.err').read_text()[-200:]!r} | | |")
        continue
    rej = (doc.get("rejections") or [{}])[0]
    timed = sum(1 for s in doc.get("shapes", []) if s.get("time"))
    peak = (doc.get("device") or {}).get("peak_memory_bytes", {})
    print(f"| {name} | {doc.get('status')} | {timed} | {rej.get('rule', '')} {str(rej.get('message', ''))[:80]!r} | "
          f"{peak.get('judge')} / {peak.get('candidate')} | {doc.get('wall_s')} |")
summary = out / "kernelbench" / "summary.json"
if summary.exists():
    print((out / "kernelbench.out").read_text()[-3000:])
EOF
