#!/usr/bin/env bash
# On a lent GPU (device tool): install the carried wheels once per machine, then the GPU correctness
# test of the given reference kernels (every shape and held-out shape, the operator's dtype) and any
# extra test files, each log under OUTDIR. Prints the card and each run's last line.
#   bash tools/device_kernel_tests.sh OUTDIR "KERNEL OR KERNEL ..." [tests/...py ...]
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:?OUTDIR}"; expr="${2:?a pytest -k expression naming the kernels}"; shift 2
mkdir -p "$out"
card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1); echo "card: $card"; echo "$card" > "$out/card.txt"
export PYTHONPATH="$PWD"
. tools/device_site.sh
carried_wheels    # a failed install is reported; the tests then say what is missing
timeout 150 python3 -m pytest -q -p no:cacheprovider -m gpu tests/reference_kernels/test_reference_kernels.py \
  -k "$expr" > "$out/pytest-kernels.txt" 2>&1; echo "kernels: $(tail -n 1 "$out/pytest-kernels.txt")"
for t in "$@"; do
  timeout 60 python3 -m pytest -q -p no:cacheprovider "$t" > "$out/pytest-$(basename "$t" .py).txt" 2>&1
  echo "$(basename "$t"): $(tail -n 1 "$out/pytest-$(basename "$t" .py).txt")"
done
