"""Causal depthwise conv1d + bias + SiLU over time (Mamba's causal_conv1d)."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, dim: int, width: int):
        super().__init__()
        self.width = width
        self.weight = torch.nn.Parameter(torch.randn(dim, width) / width ** 0.5)
        self.bias = torch.nn.Parameter(torch.randn(dim) * 0.1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.conv1d(x, self.weight.unsqueeze(1), self.bias, padding=self.width - 1, groups=x.shape[1])
        return F.silu(y[..., : x.shape[-1]])


def init_kwargs(*, dim: int, width: int, **_) -> dict:
    return {"dim": dim, "width": width}


def make_inputs(*, dtype, device, batch: int, dim: int, seqlen: int, width: int) -> list:
    return [torch.randn(batch, dim, seqlen, dtype=dtype, device=device)]
