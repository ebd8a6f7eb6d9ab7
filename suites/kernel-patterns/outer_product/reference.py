"""Outer product of two vectors (rank-1 update, frequency tables)."""

import torch


class Model(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.outer(a, b)


def make_inputs(*, dtype, device, m: int, n: int) -> list:
    return [torch.randn(m, dtype=dtype, device=device), torch.randn(n, dtype=dtype, device=device)]
