"""Vector-matrix product y = x @ w with w stored [k, n] (GPT-2 Conv1D / Flax Dense layout)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return torch.matmul(x, w)


def make_inputs(*, dtype, device, k: int, n: int) -> list:
    x = (torch.randn(k, device=device) / k ** 0.5).to(dtype)
    w = torch.randn(k, n, dtype=dtype, device=device)
    return [x, w]
