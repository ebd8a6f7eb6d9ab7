"""Broken: stores far past the end of the output (an illegal address on a GPU)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _oob(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.store(y_ptr + offs + (1 << 40), v)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x):
        y = torch.empty_like(x)
        _oob[(1,)](x, y, x.numel(), BLOCK=64)
        return y
