"""Stream compaction: ordered positions of x > 0.5, padded with -1, and their count."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        picked = torch.nonzero(x > 0.5).reshape(-1)
        idx = torch.full((x.shape[0],), -1, dtype=torch.int64, device=x.device)
        idx[: picked.shape[0]] = picked
        count = torch.full((1,), picked.shape[0], dtype=torch.int64, device=x.device)
        return idx, count


def make_inputs(*, dtype, device, n: int) -> list:
    return [torch.rand(n, dtype=dtype, device=device)]
