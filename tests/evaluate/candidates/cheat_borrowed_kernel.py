"""Cheat: the work is done by someone else's kernel (imported), beside a decoy launch of its own."""
import torch
import triton
import triton.language as tl

from reference_kernels.rmsnorm.one_row_registers import _rmsnorm_row


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
        y = torch.empty_like(x)
        _rmsnorm_row[(x.shape[0],)](x, self.weight, y, x.shape[1], x.stride(0), y.stride(0), self.eps,
                                    BLOCK=triton.next_power_of_2(x.shape[1]))
        return y
