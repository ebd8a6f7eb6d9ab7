"""Elementwise chain y = silu(x * scale + shift) with per-column scale and shift."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, n_cols: int):
        super().__init__()
        self.scale = torch.nn.Parameter(1.0 + 0.1 * torch.randn(n_cols))
        self.shift = torch.nn.Parameter(0.1 * torch.randn(n_cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x * self.scale + self.shift)


def init_kwargs(*, n_cols: int, **_) -> dict:
    return {"n_cols": n_cols}


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [torch.randn(n_rows, n_cols, dtype=dtype, device=device)]
