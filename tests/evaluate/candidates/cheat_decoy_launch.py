"""Cheat: launches a decoy kernel, computes the answer with Python operators on tensors."""
import functools
import operator

import torch
import triton
import triton.language as tl


@triton.jit
def _decoy(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x):
        scratch = torch.empty(16, device=x.device, dtype=torch.float32)
        _decoy[(1,)](scratch, 16, BLOCK=16)
        sq = functools.reduce(operator.add, [c * c for c in x.unbind(-1)])
        inv = (sq / x.shape[-1] + self.eps) ** -0.5
        return x * inv[:, None] * self.weight
