"""EmbeddingBag(mode="sum") with bag offsets: gather rows of a table and sum each ragged bag."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, num_emb: int, d: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.rand(num_emb, d))

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        return F.embedding_bag(indices, self.weight, offsets[:-1], mode="sum")


def init_kwargs(*, num_emb: int, d: int, **_) -> dict:
    return {"num_emb": num_emb, "d": d}


def make_inputs(*, dtype, device, n_bags: int, n_idx: int, num_emb: int, d: int) -> list:
    indices = torch.randint(0, num_emb, (n_idx,), device=device)
    cuts = torch.sort(torch.randint(0, n_idx + 1, (n_bags - 1,), device=device)).values
    zero = torch.zeros(1, dtype=torch.int64, device=device)
    end = torch.full((1,), n_idx, dtype=torch.int64, device=device)
    return [indices, torch.cat([zero, cuts, end])]
