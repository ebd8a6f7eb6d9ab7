"""Row sum in fp32: the one-axis reduction every norm, softmax and loss is built from."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.sum(dim=-1)


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [torch.rand(n_rows, n_cols, dtype=dtype, device=device)]
