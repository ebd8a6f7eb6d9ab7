"""Linear + bias + exact GELU (the MLP up-projection of BERT / ViT / CLIP blocks)."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, n: int, k: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(n, k) / k ** 0.5)
        self.bias = torch.nn.Parameter(0.1 * torch.randn(n))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(F.linear(x, self.weight, self.bias))


def init_kwargs(*, n: int, k: int, **_) -> dict:
    return {"n": n, "k": k}


def make_inputs(*, dtype, device, m: int, n: int, k: int) -> list:
    return [torch.randn(m, k, dtype=dtype, device=device)]
