"""Row scatter-add into a zeroed output (MoE unpermute-and-reduce, embedding gradients)."""

import torch


class Model(torch.nn.Module):
    def __init__(self, n_out: int):
        super().__init__()
        self.n_out = n_out

    def forward(self, src: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        out = torch.zeros(self.n_out, src.shape[1], dtype=src.dtype, device=src.device)
        return out.index_add_(0, index, src)


def init_kwargs(*, n_out: int, **_) -> dict:
    return {"n_out": n_out}


def make_inputs(*, dtype, device, n_src: int, n_out: int, d: int) -> list:
    src = torch.randn(n_src, d, dtype=dtype, device=device)
    index = torch.randint(0, n_out, (n_src,), device=device, dtype=torch.int64)
    return [src, index]
