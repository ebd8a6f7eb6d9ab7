"""matmul_int4_grouped/scale_group_partials' tf32x2 split: a = hi + lo with hi rounded to TF32 in bit
arithmetic (half away from zero, as cvt.rna) and lo the exact remainder. Checked on the bits, and
through the whole kernel on special values (an infinity, a NaN, a NaN whose payload would carry
into the sign bit), which must come out where the reference puts them. Interpreter here
(tests/conftest.py), a GPU where there is one."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


@pytest.fixture(scope="module")
def kern():
    return load_module(str(ROOT / "reference_kernels" / "matmul_int4_grouped" / "scale_group_partials.py"), "sgp")


def _rna_tf32(x: np.ndarray) -> np.ndarray:
    """TF32 rounding, half away from zero, on the magnitude in float64 (finite x)."""
    m, e = np.frexp(np.abs(x.astype(np.float64)))          # |x| = m * 2^e, m in [0.5, 1)
    r = np.floor(m * 2.0 ** 11 + 0.5) / 2.0 ** 11            # 11 significant bits = 1 implicit + 10
    return (np.sign(x) * np.ldexp(r, e)).astype(np.float32)


ROUND_TF32 = None
"""The kernel's jit rounding function, set by the test that uses it (a jit function reads globals)."""


@triton.jit
def _split(x_ptr, hi_ptr, lo_ptr, n, BLOCK: tl.constexpr):
    i = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + i, mask=i < n)
    hi = ROUND_TF32(x)
    tl.store(hi_ptr + i, hi, mask=i < n)
    tl.store(lo_ptr + i, x - hi, mask=i < n)


def test_hi_is_tf32_and_lo_the_exact_remainder(kern, monkeypatch):
    monkeypatch.setitem(globals(), "ROUND_TF32", kern._round_tf32)
    gen = torch.Generator().manual_seed(0)
    x = torch.cat([torch.randn(4000, generator=gen) * 10.0 ** torch.randint(-20, 20, (4000,), generator=gen),
                   torch.tensor([1.0 + 2.0 ** -11, 1.0 + 3 * 2.0 ** -11, -(1.0 + 2.0 ** -11), 0.0, -0.0])])
    x = x.to(DEVICE)
    hi, lo = torch.empty_like(x), torch.empty_like(x)
    _split[(1,)](x, hi, lo, x.numel(), BLOCK=triton.next_power_of_2(x.numel()))
    hi_np, lo_np, x_np = hi.cpu().numpy(), lo.cpu().numpy(), x.cpu().numpy()
    assert (hi_np.view(np.uint32) & 0x1FFF == 0).all()                       # 10 mantissa bits left
    assert np.array_equal(hi_np, _rna_tf32(x_np))                            # ties away from zero
    assert np.array_equal(hi_np.astype(np.float64) + lo_np, x_np.astype(np.float64))   # nothing lost
    assert (np.abs(lo_np) <= np.abs(x_np) * 2.0 ** -11).all()


def test_special_values_come_out_where_the_reference_puts_them(kern):
    ref_mod = load_module(str(ROOT / "suites" / "kernel-patterns" / "matmul_int4_grouped" / "reference.py"), "i4ref")
    shape = dict(m=5, n=33, k=96, group_size=32)
    torch.manual_seed(0)
    a, wq, scale = ref_mod.make_inputs(dtype=torch.float32, device=DEVICE, **shape)
    a[1, 3] = float("inf")
    a[2, 7] = float("nan")
    a[3, 0] = torch.tensor(0x7FFFF123, dtype=torch.int32).view(torch.float32).item()   # NaN, payload near the top
    want = ref_mod.Model(**ref_mod.init_kwargs(**shape)).to(DEVICE)(a, wq, scale)
    got = kern.ModelNew(shape["group_size"])(a, wq, scale)
    assert torch.equal(torch.isnan(got), torch.isnan(want)) and torch.equal(torch.isinf(got), torch.isinf(want))
    fin = torch.isfinite(want)
    assert torch.allclose(got[fin], want[fin], rtol=1e-5, atol=1e-4)
