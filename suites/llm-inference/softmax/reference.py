"""Softmax over the last dimension in fp32, returned in the input dtype."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.softmax(x.float(), dim=-1).to(x.dtype)


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [2.0 * torch.randn(n_rows, n_cols, dtype=dtype, device=device)]
