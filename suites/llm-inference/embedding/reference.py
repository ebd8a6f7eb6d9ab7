"""Token embedding lookup (nn.Embedding forward)."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(vocab, hidden))

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return F.embedding(input_ids, self.weight)


def init_kwargs(*, vocab: int, hidden: int, **_) -> dict:
    return {"vocab": vocab, "hidden": hidden}


def make_inputs(*, dtype, device, n_tokens: int, vocab: int, hidden: int) -> list:
    return [torch.randint(0, vocab, (n_tokens,), device=device)]
