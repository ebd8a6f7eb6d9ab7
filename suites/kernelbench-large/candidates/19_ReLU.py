"""ReLU as one flat streaming pass: each program reads BLOCK contiguous floats and writes BLOCK.

Offsets are 64-bit (4096 x 393216 is 1.6e9 elements, near 2**31). When BLOCK divides the element
count the kernel is compiled without masks. NaN passes through, as torch.relu keeps it.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 8192
NUM_WARPS = 8


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs, eviction_policy="evict_first")
        tl.store(y_ptr + offs, tl.where(x < 0.0, 0.0, x))
    else:
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first")
        tl.store(y_ptr + offs, tl.where(x < 0.0, 0.0, x), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        if n > 0:
            _relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK, EVEN=(n % BLOCK == 0),
                                                   num_warps=NUM_WARPS)
        return y
