"""rmsnorm/one_row_registers at the points the suite test does not reach (it runs each kernel at
its defaults and its smallest values): EVICT_HINTS = 1 and REREAD = 1, the second of which reads
the row twice; STATIC_N = 1 (the hidden size compiled in) and W_FIRST = 1 (the weight read first). Against the operator's reference on rows that fill a power-of-two block and rows
that leave it masked. Interpreter here (tests/conftest.py; it ignores the eviction hints, so this
checks what REREAD computes), a GPU where there is one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


@pytest.fixture(scope="module")
def modules():
    kern = load_module(str(ROOT / "reference_kernels" / "rmsnorm" / "one_row_registers.py"), "orr_points")
    ref = load_module(str(ROOT / "suites" / "llm-inference" / "rmsnorm" / "reference.py"), "orr_ref")
    return kern, ref


@pytest.mark.parametrize("point", [{"EVICT_HINTS": 1}, {"REREAD": 1}, {"REREAD": 1, "EVICT_HINTS": 1, "NUM_WARPS": 2},
                                   {"STATIC_N": 1}, {"STATIC_N": 1, "W_FIRST": 1, "REREAD": 1}, {"W_FIRST": 1}])
@pytest.mark.parametrize("rows, hidden", [(3, 64), (2, 200)])
def test_the_point_matches_the_reference(modules, monkeypatch, point, rows, hidden):
    kern, ref = modules
    for name, value in point.items():
        monkeypatch.setattr(kern, name, value)
    torch.manual_seed(0)
    want_model = ref.Model(hidden).to(DEVICE)
    model = kern.ModelNew(hidden).to(DEVICE)
    model.weight.data.copy_(want_model.weight.data)
    x = torch.randn(rows, hidden, device=DEVICE)
    with torch.no_grad():
        torch.testing.assert_close(model(x), want_model(x), atol=1e-5, rtol=1e-5)
