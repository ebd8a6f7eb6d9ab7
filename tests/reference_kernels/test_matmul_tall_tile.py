"""matmul_bf16/tma_persistent_flat's tile choice per shape (`_tma_config`, host code only): TALL_TILE
swaps the big tile for cuBLAS's 256x128 on 8 warps, SMEM_BUDGET decides the stages, and shapes that
take a smaller tile are unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def kern():
    return load_module(str(ROOT / "reference_kernels" / "matmul_bf16" / "tma_persistent_flat.py"), "mm_tall")


@pytest.mark.parametrize("tall, tile", [(0, (128, 256)), (1, (256, 128))])
def test_the_big_tile_follows_tall_tile_on_eight_warps(kern, tall, tile):
    kern.TALL_TILE = tall
    bm, bn, bk, stages, warps, subtile = kern._tma_config(4096, 4096, 4096, 132)
    assert (bm, bn, bk, warps, subtile) == (*tile, 64, 8, True)
    assert stages == 4                                   # 4 x 48 KB of operands + 32 KB of store staging
    kern.SMEM_BUDGET = 220 * 1024                        # the budget before session 47: one stage less
    assert kern._tma_config(4096, 4096, 4096, 132)[3] == 3


@pytest.mark.parametrize("tall", [0, 1])
def test_shapes_that_want_a_small_tile_keep_it(kern, tall):
    kern.TALL_TILE = tall
    assert kern._tma_config(1000, 1000, 1000, 132)[:2] == (64, 128)
