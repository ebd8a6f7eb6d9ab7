"""Reverse each row (backward direction of bidirectional sequence models)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flip(x, dims=[-1])


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [torch.randn(n_rows, n_cols, dtype=dtype, device=device)]
