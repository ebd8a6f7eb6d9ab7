"""scatter_add_rows/onehot_tensor_core beyond the suite's cpu shapes: the split-rows path (zero-fill,
atomic tiles), the row-scatter path past MAX_TARGETS, 16-bit sources, and non-finite sources, which
must land (NaN, +inf, -inf) on exactly the rows index_add_ puts them on and nowhere else.
Interpreter here (tests/conftest.py), a GPU where there is one."""

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
    module = load_module(str(ROOT / "reference_kernels" / "scatter_add_rows" / "onehot_tensor_core.py"), "sohot")
    module.BLOCK_R, module.BLOCK_D = 32, 32
    return module


def _case(n_src: int, n_out: int, d: int, dtype=torch.float32, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    src = torch.randn(n_src, d, generator=g).to(dtype).to(DEVICE)
    index = torch.randint(0, n_out, (n_src,), generator=g).to(DEVICE)
    return src, index


def _reference(src: torch.Tensor, index: torch.Tensor, n_out: int) -> torch.Tensor:
    out = torch.zeros(n_out, src.shape[1], dtype=torch.float64, device=src.device)
    return out.index_add_(0, index, src.double())


@pytest.mark.parametrize("n_src, n_out, d", [(200, 7, 40), (97, 20, 33), (64, 1, 32)])
def test_one_launch_and_split_rows_paths_match_index_add(kern, n_src, n_out, d):
    src, index = _case(n_src, n_out, d)
    ref = _reference(src, index, n_out)
    for per_sm in (1, 8):                     # CPU_SMS 4: 1 split at 1 per SM, several at 8
        kern.PROGRAMS_PER_SM = per_sm
        got = kern.ModelNew(n_out)(src, index)
        assert got.dtype == src.dtype
        torch.testing.assert_close(got.double(), ref, atol=1e-5, rtol=1e-5)


def test_the_plan_splits_rows_only_when_columns_leave_programs_idle(kern):
    kern.PROGRAMS_PER_SM = 1
    assert kern.plan(200, 7, 40, sms=4)[1] == 2          # 2 column blocks, 4 programs: 2 splits
    assert kern.plan(200, 7, 256, sms=4)[1] == 1         # 8 column blocks already fill 4 programs
    targets, splits, per = kern.plan(512, 64, 4096, sms=132)
    assert (targets, splits) == (64, 1) and per >= 512   # decode MoE: one launch on an H200
    assert kern.plan(512, 65, 4096, sms=132)[0] == 0     # past MAX_TARGETS: the row scatter


def test_many_targets_take_the_row_scatter(kern):
    kern.MAX_TARGETS = 4
    src, index = _case(70, 9, 45)
    torch.testing.assert_close(kern.ModelNew(9)(src, index).double(), _reference(src, index, 9),
                               atol=1e-5, rtol=1e-5)


def test_tf32x2_keeps_fp32_accuracy(kern):
    """One TF32 product alone would be off by about 2^-11 of each value; the split stays near fp32."""
    src, index = _case(256, 5, 64, seed=3)
    src = src * 1000.0 + 1.0 / 3.0
    ref = _reference(src, index, 5)
    one_pass = (src.view(torch.int32) & ~0x1FFF).view(torch.float32)      # TF32 as the tensor cores truncate
    tf32_err = (_reference(one_pass, index, 5) - ref).abs().max().item()
    err = (kern.ModelNew(5)(src, index).double() - ref).abs().max().item()
    assert tf32_err > 1.0 and err < tf32_err / 1000


@pytest.mark.parametrize("dtype", [torch.float16, pytest.param(torch.bfloat16, marks=pytest.mark.skipif(
    DEVICE == "cpu", reason="the Triton interpreter has no bf16 arithmetic"))])
def test_16_bit_sources(kern, dtype):
    src, index = _case(96, 6, 40, dtype=dtype, seed=1)
    got = kern.ModelNew(6)(src, index)
    assert got.dtype == dtype
    torch.testing.assert_close(got.double(), _reference(src, index, 6), atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("per_sm", [1, 8])
def test_non_finite_sources_land_where_index_add_puts_them(kern, per_sm):
    kern.PROGRAMS_PER_SM = per_sm
    n_out, d = 6, 40
    src, index = _case(100, n_out, d, seed=2)
    index[:6] = torch.tensor([0, 0, 1, 2, 2, 3])
    src[0, 3], src[1, 3] = float("inf"), float("inf")        # target 0, col 3: +inf twice -> +inf
    src[2, 5] = float("-inf")                                # target 1, col 5: -inf
    src[3, 7], src[4, 7] = float("inf"), float("-inf")       # target 2, col 7: +inf + -inf -> NaN
    src[5, 9] = float("nan")                                 # target 3, col 9: NaN
    src[80, 1] = float("inf")                                # a later chunk (and split)
    index[80] = 4
    want = torch.zeros(n_out, d, device=DEVICE).index_add_(0, index, src)
    got = kern.ModelNew(n_out)(src, index)
    special = ~torch.isfinite(want)
    assert special.sum().item() == 5
    assert torch.equal(torch.isnan(got), torch.isnan(want))
    assert torch.equal(got[special & ~torch.isnan(want)], want[special & ~torch.isnan(want)])
    torch.testing.assert_close(got[~special], want[~special], atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("n_src, n_out, d", [(0, 5, 40), (0, 3, 0), (4, 0, 16), (0, 100, 8)])
def test_empty_sources_or_outputs(kern, n_src, n_out, d):
    src, index = _case(n_src, max(n_out, 1), d)
    got = kern.ModelNew(n_out)(src, index)
    assert got.shape == (n_out, d) and torch.equal(got, torch.zeros(n_out, d, device=DEVICE))
