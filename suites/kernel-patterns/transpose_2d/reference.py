"""Materialized 2D transpose (weight layout conversion, K-major <-> N-major)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.t().contiguous()


def make_inputs(*, dtype, device, m: int, n: int) -> list:
    return [torch.randn(m, n, dtype=dtype, device=device)]
