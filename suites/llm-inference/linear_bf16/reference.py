"""nn.Linear without bias: y = x @ weight.T (cuBLAS in production)."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(out_features, in_features) / in_features ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.weight)


def init_kwargs(*, n: int, k: int, **_) -> dict:
    return {"in_features": k, "out_features": n}


def make_inputs(*, dtype, device, m: int, n: int, k: int) -> list:
    return [torch.randn(m, k, dtype=dtype, device=device)]
