"""Inclusive prefix sum of one long vector: the device-wide scan."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x, dim=0)


def make_inputs(*, dtype, device, n: int) -> list:
    return [torch.rand(n, dtype=dtype, device=device)]
