"""The unmasked and single-image paths of two flat kernels, which the suites' cpu shapes never reach:
embedding/flat_gather without masks when its grid covers the output exactly (hidden a compile-time
constant), and layout_nchw_to_nhwc/flat_or_tiled_by_channels' flat path for a batch of one.
Interpreter here (tests/conftest.py), a GPU where there is one."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module

ROOT = Path(__file__).resolve().parents[2]
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


def _kernel(op: str, name: str, alias: str):
    return load_module(str(ROOT / "reference_kernels" / op / f"{name}.py"), alias)


@pytest.mark.parametrize("n_tokens, hidden, block", [(4, 64, 64), (3, 96, 32), (5, 64, 128), (7, 48, 64)])
def test_flat_gather_gathers_every_row_with_and_without_masks(n_tokens, hidden, block):
    """(4, 64, 64) and (3, 96, 32) cover the output exactly (no masks); the others end mid-block."""
    kern = _kernel("embedding", "flat_gather", "fg_even")
    kern.BLOCK = block
    vocab = 11
    model = kern.ModelNew(vocab, hidden).to(DEVICE)
    with torch.no_grad():
        model.weight.copy_(torch.arange(vocab * hidden, dtype=torch.float32).reshape(vocab, hidden))
    ids = torch.tensor([(7 * t + 3) % vocab for t in range(n_tokens)], dtype=torch.int64)
    got = model(ids.to(DEVICE)).cpu()
    assert torch.equal(got, model.weight.detach().cpu()[ids])


@pytest.mark.parametrize("shape", [(1, 3, 6, 9), (1, 5, 4, 4), (2, 3, 5, 7)])
def test_flat_layout_path_moves_every_element_for_one_image_and_several(shape):
    kern = _kernel("layout_nchw_to_nhwc", "flat_or_tiled_by_channels", "layout_one")
    x = torch.arange(torch.Size(shape).numel(), dtype=torch.float32).reshape(shape)
    got = kern.ModelNew()(x.to(DEVICE)).cpu()
    assert torch.equal(got, x.permute(0, 2, 3, 1))
