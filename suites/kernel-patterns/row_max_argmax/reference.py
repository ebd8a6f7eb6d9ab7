"""Row max with its index (lowest index among ties): a value-and-index pair reduction."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        values, indices = torch.max(x, dim=-1)
        return values, indices


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    # multiples of 1/4 in [0, 64): exact in every float dtype, with many tied maxima per long row
    q = torch.randint(0, 256, (n_rows, n_cols), device=device)
    return [(q.to(torch.float32) * 0.25).to(dtype)]
