"""Softmax along dim 0 (each column normalized over the rows): expert-choice routing."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x, dim=0)


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [torch.randn(n_rows, n_cols, dtype=dtype, device=device)]
