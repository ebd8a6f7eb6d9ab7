"""reverse_rows/flat_mirrored with VEC_FLIP = 1: each thread's four outputs read as one ascending
vector and swapped in registers. Against torch.flip on rows whose length is a multiple of 4 (the
vector path: whole blocks, a block that spans rows, a masked last block) and on rows that are not
(the scalar path it falls back to), in float32 and int32 (a flip moves bits, it must not round).
Interpreter here (tests/conftest.py), a GPU where there is one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


@pytest.fixture(scope="module")
def kern():
    module = load_module(str(ROOT / "reference_kernels" / "reverse_rows" / "flat_mirrored.py"), "fm_vec")
    module.VEC_FLIP, module.AUTO, module.BLOCK, module.NUM_WARPS = 1, 0, 64, 1
    return module


@pytest.mark.parametrize("rows, cols", [(2, 64), (3, 32), (5, 24), (3, 36), (2, 7), (4, 30)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int32])
def test_vec_flip_matches_torch_flip(kern, rows, cols, dtype):
    x = torch.randn(rows, cols, device=DEVICE).mul(1000).to(dtype)
    y = kern.ModelNew()(x)
    assert torch.equal(y, torch.flip(x, dims=[-1]))


def test_vec_flip_takes_the_vector_path_only_when_rows_are_multiples_of_4(kern, monkeypatch):
    launched = []
    real = kern._reverse_flat
    monkeypatch.setattr(kern, "_reverse_flat", _Recording(real, launched))
    kern.ModelNew()(torch.zeros(2, 40, device=DEVICE))
    kern.ModelNew()(torch.zeros(2, 41, device=DEVICE))
    assert launched == [True, False]


class _Recording:
    """The kernel, with each launch's VEC recorded."""

    def __init__(self, fn, log):
        self.fn, self.log = fn, log

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.log.append(kwargs["VEC"])
            return self.fn[grid](*args, **kwargs)
        return launch
