"""row_max_argmax's single-launch kernels against torch.max on inputs the suite's shapes never hold:
ties across split chunks, NaN (first NaN wins), rows of -inf, -0.0 beside +0.0, negative values,
and both layouts (multi-row tiles and split rows with the last-arriver merge), at their parameter
points. Runs in Triton's interpreter here (tests/conftest.py) and on a GPU where there is one."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ("adaptive_single_launch", "packed_key_tiles")
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


def _load(name: str, **params):
    module = load_module(str(ROOT / "reference_kernels" / "row_max_argmax" / f"{name}.py"), "rma_edges")
    for k, v in params.items():
        assert hasattr(module, k), f"{name} has no constant {k}"
        setattr(module, k, v)
    return module


def _inputs() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(7)
    ties = torch.zeros(3, 2500)
    ties[0, [5, 2100, 2400]] = 9.0                     # equal maxima in different split chunks
    ties[1, [2047, 2048]] = 4.0                        # across a chunk boundary
    ties[2] = 1.0                                      # a constant row: column 0
    nan = torch.randn(4, 300, generator=g)
    nan[0, 7] = float("nan")
    nan[1, [250, 20]] = float("nan")                   # the first NaN, not the lowest-valued one
    nan[2, 0] = float("inf")
    nan[3, 299] = float("nan")
    nan[3, 100] = -nan[3, 299]                         # a NaN with its sign bit set comes first
    neg = -torch.rand(5, 77, generator=g) - 1.0
    neg[1, 40] = -0.5
    zeros = torch.zeros(3, 64)
    zeros[0, 0], zeros[0, 1] = -0.0, 0.0               # -0.0 == +0.0: the first column
    zeros[1] = -0.0
    zeros[2] -= 1.0
    zeros[2, 10], zeros[2, 3] = 0.0, -0.0              # -0.0 first, then +0.0: column 3
    inf = torch.full((2, 1500), float("-inf"))
    inf[1, 700] = -3.0e38
    many = (torch.randint(0, 8, (300, 64), generator=g).float() * 0.25)  # many short tied rows
    return {"ties": ties, "nan": nan, "neg": neg, "zeros": zeros, "inf": inf, "many": many}


POINTS = [dict(), dict(TILE=2048, SPLIT_CHUNK=2048, NUM_WARPS=4), dict(TILE=8192, SPLIT_CHUNK=8192)]


@pytest.mark.parametrize("kernel,point", list(itertools.product(KERNELS, POINTS)),
                         ids=lambda v: v if isinstance(v, str) else ",".join(f"{k}={x}" for k, x in v.items()) or "default")
def test_matches_torch_max_on_edge_inputs(kernel, point):
    module = _load(kernel, **point)
    model = module.ModelNew()
    for name, x in _inputs().items():
        x = x.to(DEVICE)
        want_v, want_i = torch.max(x, dim=-1)
        for call in range(2):                          # the arrival counters are back at zero after a call
            got_v, got_i = model(x)
            assert torch.equal(got_i.cpu(), want_i.cpu()), (kernel, point, name, call, got_i, want_i)
            torch.testing.assert_close(got_v.cpu(), want_v.cpu(), rtol=0, atol=0, equal_nan=True,
                                       msg=f"{kernel} {point} {name} call {call}")


def test_packed_key_split_path_is_taken_for_few_long_rows():
    """The 'ties' rows (3 rows of 2500 columns, SPLIT_CHUNK 2048) go through the split kernel."""
    module = _load("packed_key_tiles", SPLIT_CHUNK=2048)
    launched = []
    split = module._rows_split

    class Spy:
        def __getitem__(self, grid):
            launched.append(grid)
            return split[grid]
    module._rows_split = Spy()
    x = _inputs()["ties"].to(DEVICE)
    _, idx = module.ModelNew()(x)
    assert launched and launched[0][1] == 3
    assert idx.tolist() == [5, 2047, 0]
