"""global_sum/single_launch_last_program's one-program path unrolls its steps (a constexpr trip count,
unmasked when the steps divide n). The suite's cpu_shapes reach only its one-step masked form, so
this checks every form against torch.sum at sizes around the step boundaries: one step or several,
even or with a tail, and the first size that takes the grid path. Interpreter here (tests/conftest.py),
a GPU where there is one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


@pytest.fixture(scope="module")
def gs():
    return load_module(str(ROOT / "reference_kernels" / "global_sum" / "single_launch_last_program.py"), "gs_one")


@pytest.mark.parametrize("n", [1, 512, 1024, 1025, 2048, 3000, 4096, 4097])
@pytest.mark.parametrize("step", [1024, 2048])
def test_each_unrolled_form_sums_like_torch(gs, monkeypatch, n, step):
    monkeypatch.setattr(gs, "ONE_PROGRAM_BLOCK", step)
    x = torch.randn(n, generator=torch.Generator().manual_seed(n)).to(DEVICE)
    got = gs.ModelNew()(x)
    want = x.double().sum().float()
    assert got.shape == () and got.dtype == torch.float32
    assert torch.allclose(got.cpu(), want.cpu(), rtol=1e-5, atol=1e-4), (n, step, got.item(), want.item())


def test_the_trip_count_and_mask_follow_n(gs, monkeypatch):
    seen = []

    class Spy:
        def __getitem__(self, grid):
            return lambda *args, **kw: seen.append((kw["TRIPS"], kw["EVEN"]))

    monkeypatch.setattr(gs, "_sum_one_program", Spy())
    y = torch.empty((), dtype=torch.float32)
    for n in (4096, 3000, 2048, 37):
        gs.launch(torch.zeros(n), y, None, 4096, 528, 16, 2048, 8)
    assert seen == [(2, True), (2, False), (1, True), (1, False)]
