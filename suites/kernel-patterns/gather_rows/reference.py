"""Row gather out = x[index] (MoE permute, beam-search cache reorder)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, 0, index)


def make_inputs(*, dtype, device, n_src: int, n_out: int, d: int) -> list:
    x = torch.randn(n_src, d, dtype=dtype, device=device)
    index = torch.randint(0, n_src, (n_out,), device=device, dtype=torch.int64)
    return [x, index]
