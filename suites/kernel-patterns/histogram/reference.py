"""Integer histogram (bincount) of ids in [0, num_bins): MoE expert load, token counts."""

import torch


class Model(torch.nn.Module):
    def __init__(self, num_bins: int):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return torch.bincount(ids, minlength=self.num_bins)


def init_kwargs(*, num_bins: int, **_) -> dict:
    return {"num_bins": num_bins}


def make_inputs(*, dtype, device, n: int, num_bins: int) -> list:
    # ids are int32 whatever dtype the harness runs; skewed so some bins are hot and some empty
    u = torch.rand(n, device=device)
    return [(u * u * num_bins).to(torch.int32).clamp_(max=num_bins - 1)]
