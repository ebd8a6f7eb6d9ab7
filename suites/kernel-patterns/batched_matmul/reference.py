"""Batched GEMM (torch.bmm): equal-sized independent GEMMs, one per batch entry."""

import torch


class Model(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.bmm(a, b)


def make_inputs(*, dtype, device, batch: int, m: int, n: int, k: int) -> list:
    a = torch.randn(batch, m, k, dtype=dtype, device=device)
    b = (torch.randn(batch, k, n, device=device) / k ** 0.5).to(dtype)
    return [a, b]
