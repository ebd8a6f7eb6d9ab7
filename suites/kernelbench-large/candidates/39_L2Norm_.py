"""Rows divided by their L2 norm, for rows longer than one block (32768 rows of 65535 floats).

One program per row, two sweeps over BLOCK_N-column chunks: the first accumulates the squares in a
BLOCK_N-wide float32 vector (reduced once at the end, so no long serial sum), the second re-reads
the row and writes x / sqrt(sum). Two reads and one write per element; a 256 KB row read twice
by one program often finds its second read in L2. Row offsets are 64-bit (32768 x 65535 is just
under 2**31 elements). Only dim 1 of a 2-D input, as the problem asks.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_N = 4096
NUM_WARPS = 8


@triton.jit
def _l2norm_row_kernel(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        if EVEN:
            x = tl.load(x_ptr + row + start + cols).to(tl.float32)
        else:
            x = tl.load(x_ptr + row + start + cols, mask=start + cols < n_cols, other=0.0).to(tl.float32)
        acc += x * x
    norm = tl.sqrt(tl.sum(acc, axis=0))
    for start in range(0, n_cols, BLOCK_N):
        if EVEN:
            x = tl.load(x_ptr + row + start + cols, eviction_policy="evict_first").to(tl.float32)
            tl.store(y_ptr + row + start + cols, (x / norm).to(y_ptr.dtype.element_ty))
        else:
            mask = start + cols < n_cols
            x = tl.load(x_ptr + row + start + cols, mask=mask, other=0.0,
                        eviction_policy="evict_first").to(tl.float32)
            tl.store(y_ptr + row + start + cols, (x / norm).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2:
            raise ValueError("this kernel normalizes the rows (dim 1) of a 2-D tensor")
        n_rows, n_cols = x.shape
        xc = x.contiguous()
        y = torch.empty_like(xc)
        if n_rows > 0 and n_cols > 0:
            block = min(BLOCK_N, triton.next_power_of_2(n_cols))
            _l2norm_row_kernel[(n_rows,)](xc, y, n_cols, BLOCK_N=block, EVEN=(n_cols % block == 0),
                                          num_warps=NUM_WARPS)
        return y
