"""cumsum_rows/reduce_then_scan on both of its paths: rows of one chunk (pass 1 skipped, the block no
wider than the row) and rows split over several chunks (partials, then offsets), against torch.cumsum,
with lengths that end mid-block and mid-chunk. Interpreter here (tests/conftest.py), a GPU where
there is one."""

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
    module = load_module(str(ROOT / "reference_kernels" / "cumsum_rows" / "reduce_then_scan.py"), "rts_paths")
    module.CHUNK, module.BLOCK_N, module.NUM_WARPS = 256, 64, 2
    return module


class _Launches:
    """Counts one kernel's launches, passing each on."""

    def __init__(self, fn):
        self.fn, self.count = fn, 0

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            self.count += 1
            return self.fn[grid](*args, **kwargs)
        return launch


@pytest.mark.parametrize("rows, cols, passes", [
    (3, 256, 1),     # exactly one chunk
    (5, 37, 1),      # a short row: one block of 64, masked
    (2, 100, 1),     # a block of 64 then a partial one
    (3, 700, 2),     # three chunks, the last partial
    (2, 513, 2),     # three chunks, the last one element long
])
def test_matches_torch_cumsum_and_skips_pass_one_for_one_chunk_rows(kern, monkeypatch, rows, cols, passes):
    sums = _Launches(kern._chunk_sums)
    monkeypatch.setattr(kern, "_chunk_sums", sums)
    x = torch.randn(rows, cols, device=DEVICE)
    y = kern.ModelNew()(x)
    torch.testing.assert_close(y, torch.cumsum(x, dim=-1), atol=1e-4, rtol=1e-4)
    assert sums.count == passes - 1
