"""linear_bf16/tma_persistent_flat's tile and pipeline depth per shape (`_tma_config`, host code
only): the 128x256x64 tile of the prefill shapes gets four stages under SMEM_BUDGET, as
matmul_bf16's copy of the kernel does, and the budget, not NUM_STAGES, is what clips them."""

from __future__ import annotations

from pathlib import Path

import pytest

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def kern():
    return load_module(str(ROOT / "reference_kernels" / "linear_bf16" / "tma_persistent_flat.py"), "linear_flat")


@pytest.mark.parametrize("m, n, k", [(4096, 4096, 4096), (4096, 28672, 4096), (8192, 8192, 3584)])
def test_prefill_tiles_take_four_stages(kern, m, n, k):
    bm, bn, bk, stages, warps, subtile = kern._tma_config(m, n, k, 132)
    assert (bm, bn, bk, warps, subtile) == (128, 256, 64, 8, True)
    assert stages == 4                                     # 4 x 48 KB of operands + 32 KB of store staging
    assert stages * (bm + bn) * bk * 2 + bm * bn // 2 * 2 <= 227 * 1024   # sm_90's shared memory per block


def test_the_budget_clips_the_stages(kern):
    kern.NUM_STAGES = 5
    assert kern._tma_config(4096, 4096, 4096, 132)[3] == 4
    kern.SMEM_BUDGET = 220 * 1024                          # the budget before session 48: one stage less
    assert kern._tma_config(4096, 4096, 4096, 132)[3] == 3
