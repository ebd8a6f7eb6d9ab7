"""Bias add + residual add without dropout (Megatron's bias_dropout_add at p = 0, inference)."""

import torch


class Model(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.bias = torch.nn.Parameter(0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return residual + (x + self.bias)


def init_kwargs(*, hidden: int, **_) -> dict:
    return {"hidden": hidden}


def make_inputs(*, dtype, device, n_tokens: int, hidden: int) -> list:
    x = torch.randn(n_tokens, hidden, dtype=dtype, device=device)
    residual = torch.randn(n_tokens, hidden, dtype=dtype, device=device)
    return [x, residual]
