"""Whole-tensor sum to a 0-d fp32 tensor (loss reductions, norms of a whole gradient)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum()


def make_inputs(*, dtype, device, n: int) -> list:
    return [torch.rand(n, dtype=dtype, device=device)]
