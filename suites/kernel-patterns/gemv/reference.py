"""Matrix-vector product y = w @ x (batch-1 decode linear layers)."""

import torch


class Model(torch.nn.Module):
    def forward(self, w: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        return torch.mv(w, x)


def make_inputs(*, dtype, device, n: int, k: int) -> list:
    w = torch.randn(n, k, dtype=dtype, device=device)
    x = (torch.randn(k, device=device) / k ** 0.5).to(dtype)
    return [w, x]
