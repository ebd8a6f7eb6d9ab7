"""Exact GELU, 0.5 * x * (1 + erf(x / sqrt(2))), as one flat streaming pass.

Each program reads BLOCK contiguous floats and writes BLOCK; the erf is Triton's (libdevice on
NVIDIA), computed in float32. Offsets are 64-bit (4096 x 393216 is 1.6e9 elements, near 2**31).
Compiled without masks when BLOCK divides the element count.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 8192
NUM_WARPS = 8


@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs, eviction_policy="evict_first").to(tl.float32)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0, eviction_policy="evict_first").to(tl.float32)
    y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
    if EVEN:
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))
    else:
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xc = x.contiguous()
        y = torch.empty_like(xc)
        n = xc.numel()
        if n > 0:
            _gelu_kernel[(triton.cdiv(n, BLOCK),)](xc, y, n, BLOCK=BLOCK, EVEN=(n % BLOCK == 0),
                                                   num_warps=NUM_WARPS)
        return y
