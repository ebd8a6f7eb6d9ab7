"""Broken: allocates far more host memory than it needs (64 GiB)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _copy(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x):
        hog = torch.empty(16 * 2**30, dtype=torch.float32, device=x.device)
        y = torch.empty_like(x)
        _copy[(1,)](hog, y, x.numel(), BLOCK=1024)
        return y
