"""Per-token cross-entropy (negative target log-probability) in fp32."""

import torch


class Model(torch.nn.Module):
    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        x = logits.float()
        return torch.logsumexp(x, dim=-1) - x.gather(-1, target[:, None]).squeeze(-1)


def make_inputs(*, dtype, device, n_rows: int, vocab: int) -> list:
    logits = 3.0 * torch.randn(n_rows, vocab, dtype=dtype, device=device)
    target = torch.randint(0, vocab, (n_rows,), device=device)
    return [logits, target]
