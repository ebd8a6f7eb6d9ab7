"""Greedy sampling: argmax over the vocabulary, lowest index on ties."""

import torch


class Model(torch.nn.Module):
    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        return torch.argmax(logits, dim=-1)


def make_inputs(*, dtype, device, n_rows: int, vocab: int) -> list:
    logits = 4.0 * torch.randn(n_rows, vocab, device=device)
    # plant a tied maximum at two random positions per row (the lower one must win)
    top = logits.max(dim=-1, keepdim=True).values + 1.0
    cols = torch.randint(0, vocab, (n_rows, 2), device=device)
    logits.scatter_(1, cols, top.expand(n_rows, 2))
    return [logits.to(dtype)]
