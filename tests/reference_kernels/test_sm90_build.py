"""Every reference kernel's launches at its operator's CPU shapes build for sm_90 with the ptxas
Triton ships, as a GPU would build them (tools/offline_compile.py, no GPU needed). The interpreter
tests check what a kernel computes; this catches what only the compiler rejects (a global that is
not constexpr, a block that is not a power of two, an unsupported op), including in kernels that
are skipped in the interpreter. Each kernel must also launch at least one Triton kernel."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tools import run_offline_compile

ROOT = Path(__file__).resolve().parents[2]
OPS = sorted(p.name for p in (ROOT / "reference_kernels").iterdir() if p.is_dir() and any(p.glob("*.py")))


@pytest.mark.parametrize("op", OPS)
def test_every_kernel_of_the_operator_builds_for_sm90(op, ptxas, tmp_path):
    kernels = sorted((ROOT / "reference_kernels" / op).glob("*.py"))
    out = tmp_path / "rows.json"
    r = run_offline_compile(*map(str, kernels), "--shapes", "cpu", "--json", str(out), timeout=900)
    assert out.exists(), r.stderr[-3000:]
    rows = json.loads(out.read_text())
    failed = [f"{row['kernel']} {row['shape']} {row['function']}: {row['error']}" for row in rows if not row["ok"]]
    assert not failed and r.returncode == 0, "\n".join(failed) or r.stderr[-3000:]
    launched = {row["kernel"] for row in rows}
    silent = [str(k.relative_to(ROOT)) for k in kernels if str(k.relative_to(ROOT)) not in launched]
    assert not silent, f"no Triton launch at the CPU shapes: {silent}"
