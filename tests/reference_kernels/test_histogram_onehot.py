"""histogram/onehot_dot_privatized's tensor-core path beyond the suite's cpu shapes (which all take
its single-program tl.histogram path): many programs, both ways of building the one-hot tiles
(TILE_LOADS 0 and 1), bin counts that are and are not powers of two, a tail shorter than a tile,
and ids outside [0, num_bins), which are dropped. Interpreter here (tests/conftest.py), a GPU where
there is one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


@pytest.fixture
def kern():
    module = load_module(str(ROOT / "reference_kernels" / "histogram" / "onehot_dot_privatized.py"), "hohot")
    module.SINGLE_MAX, module.DOT_MIN_BINS, module.DOT_BLOCK = 0, 64, 256   # the dot path at small sizes
    return module


@pytest.mark.parametrize("n, bins", [(1000, 257), (777, 1024), (256, 64)])
@pytest.mark.parametrize("tile_loads", [0, 1])
def test_the_tensor_core_path_counts_exactly(kern, n, bins, tile_loads):
    g = torch.Generator().manual_seed(n + bins)
    u = torch.rand(n, generator=g)
    ids = (u * u * bins).to(torch.int32).clamp_(max=bins - 1)
    kern.TILE_LOADS = tile_loads
    for per_sm in (1, 2):                      # CPU_SMS 4: 4 and 8 programs striding over the tiles
        kern.PROGRAMS_PER_SM = per_sm
        got = kern.ModelNew(bins)(ids.to(DEVICE))
        assert got.dtype == torch.int64 and torch.equal(got.cpu(), torch.bincount(ids.long(), minlength=bins))


@pytest.mark.parametrize("tile_loads", [0, 1])
def test_ids_outside_the_bins_are_dropped(kern, tile_loads):
    bins = 100
    ids = torch.tensor([-1, -33, 0, 5, 99, 100, 127, 128, 4096, 5, 5, -1024] * 40, dtype=torch.int32)
    kern.TILE_LOADS = tile_loads
    got = kern.ModelNew(bins)(ids.to(DEVICE)).cpu()
    keep = ids[(ids >= 0) & (ids < bins)].long()
    assert torch.equal(got, torch.bincount(keep, minlength=bins))
