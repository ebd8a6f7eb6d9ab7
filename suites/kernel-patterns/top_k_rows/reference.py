"""Top-k values and indices per row, descending (router top-k, re-ranking, beam search)."""

import torch


class Model(torch.nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    def forward(self, x: torch.Tensor) -> tuple:
        values, indices = torch.topk(x, self.k, dim=-1)
        return values, indices


def init_kwargs(*, k: int, **_) -> dict:
    return {"k": k}


def make_inputs(*, dtype, device, n_rows: int, n_cols: int, k: int) -> list:
    # each row a random permutation of distinct integers: no ties, exact in fp32
    perm = torch.argsort(torch.rand(n_rows, n_cols, device=device), dim=-1)
    return [(perm - n_cols // 2).to(dtype)]
