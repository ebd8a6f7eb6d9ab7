"""LayerNorm with weight and bias; torch computes the statistics in fp32 for bf16 input."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(hidden))
        self.bias = torch.nn.Parameter(0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.layer_norm(x, (x.shape[-1],), self.weight, self.bias, self.eps)


def init_kwargs(*, hidden: int, **_) -> dict:
    return {"hidden": hidden}


def make_inputs(*, dtype, device, n_rows: int, hidden: int) -> list:
    return [0.5 + torch.randn(n_rows, hidden, dtype=dtype, device=device)]
