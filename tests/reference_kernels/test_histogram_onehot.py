"""histogram/onehot_dot_privatized's tensor-core path beyond the suite's cpu shapes (which all take
its single-program tl.histogram path): many programs, the three ways of building the one-hot tiles
(from the ids, TILE_LOADS 0 and 1, and from byte codes, BYTE_CODES 1), bin counts that are and are not powers of two, a tail shorter than a tile,
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


PATHS = [(0, 0), (0, 1), (1, 1)]   # (BYTE_CODES, TILE_LOADS)


@pytest.mark.parametrize("n, bins", [(1000, 257), (777, 1024), (256, 64)])
@pytest.mark.parametrize("byte_codes, tile_loads", PATHS)
def test_the_tensor_core_path_counts_exactly(kern, n, bins, byte_codes, tile_loads):
    g = torch.Generator().manual_seed(n + bins)
    u = torch.rand(n, generator=g)
    ids = (u * u * bins).to(torch.int32).clamp_(max=bins - 1)
    kern.TILE_LOADS, kern.BYTE_CODES = tile_loads, byte_codes
    for per_sm in (1, 2):                      # CPU_SMS 4: 4 and 8 programs striding over the tiles
        kern.PROGRAMS_PER_SM = per_sm
        got = kern.ModelNew(bins)(ids.to(DEVICE))
        assert got.dtype == torch.int64 and torch.equal(got.cpu(), torch.bincount(ids.long(), minlength=bins))


@pytest.mark.parametrize("byte_codes, tile_loads", PATHS)
def test_ids_outside_the_bins_are_dropped(kern, byte_codes, tile_loads):
    bins = 100
    ids = torch.tensor([-1, -33, 0, 5, 99, 100, 127, 128, 4096, 5, 5, -1024] * 40, dtype=torch.int32)
    kern.TILE_LOADS, kern.BYTE_CODES = tile_loads, byte_codes
    got = kern.ModelNew(bins)(ids.to(DEVICE)).cpu()
    keep = ids[(ids >= 0) & (ids < bins)].long()
    assert torch.equal(got, torch.bincount(keep, minlength=bins))


def test_the_simd_byte_compare_marks_exactly_the_equal_bytes():
    """The bit trick the BYTE_CODES path runs as PTX on NVIDIA GPUs (here in integers, every byte
    pair): a byte of x = codes ^ rows is zero exactly when the high bit of
    ~(((x & 0x7f7f7f7f) + 0x7f7f7f7f) | x) is set, with no carry between bytes."""
    src = (ROOT / "reference_kernels" / "histogram" / "onehot_dot_privatized.py").read_text()
    for step in ("xor.b32 x, $1, $2;", "and.b32 t, x, 0x7f7f7f7f;", "add.u32 t, t, 0x7f7f7f7f;", "or.b32 t, t, x;",
                 "not.b32 t, t;", "and.b32 t, t, 0x80808080;", "shr.u32 $0, t, 7;"):
        assert step in src                                  # the asm is the sequence checked below

    def equal_bytes(codes: int, rows: int) -> int:
        x = codes ^ rows
        t = ((x & 0x7F7F7F7F) + 0x7F7F7F7F) & 0xFFFFFFFF
        t = ~(t | x) & 0xFFFFFFFF
        return (t & 0x80808080) >> 7

    for a in range(256):
        for b in range(256):
            word_a = a | (b << 8) | (((a + 17) % 256) << 16) | (((255 - b) % 256) << 24)
            word_r = b * 0x01010101
            want = sum(((word_a >> (8 * i)) & 0xFF == b) << (8 * i) for i in range(4))
            assert equal_bytes(word_a, word_r) == want, (a, b)
