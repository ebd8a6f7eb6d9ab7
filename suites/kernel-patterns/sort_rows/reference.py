"""Stable ascending sort of each row, values and permutation (router scores, candidate lists)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        values, indices = torch.sort(x, dim=-1, stable=True)
        return values, indices


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    # multiples of 1/4 in [0, 16): exact in every float dtype, many ties per row
    q = torch.randint(0, 64, (n_rows, n_cols), device=device)
    return [(q.to(torch.float32) * 0.25).to(dtype)]
