"""Inclusive prefix sum over each row in fp32 (top-p cumulative probabilities, routing offsets)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=-1)


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [torch.rand(n_rows, n_cols, dtype=dtype, device=device)]
