"""Row log-softmax for rows far longer than one block (4096 rows of 393216 floats).

One program per row, two sweeps over BLOCK_N-column chunks. The first keeps a running maximum m
and a running sum s of exp(x - m), rescaling s once per chunk when the maximum grows (one
exponential per element). The second re-reads each chunk and writes x - (m + log s). Two reads and
one write per element; registers are bounded by BLOCK_N; row offsets are 64-bit. Without masks
when BLOCK_N divides the row length. Only dim 1 (the last dim of a 2-D input) is handled, as the
problem asks.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_N = 8192
NUM_WARPS = 16


@triton.jit
def _log_softmax_row_kernel(x_ptr, y_ptr, n_cols, BLOCK_N: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK_N)
    m = -float("inf")
    s = 0.0
    for start in range(0, n_cols, BLOCK_N):
        if EVEN:
            x = tl.load(x_ptr + row + start + cols).to(tl.float32)
        else:
            x = tl.load(x_ptr + row + start + cols, mask=start + cols < n_cols,
                        other=-float("inf")).to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, axis=0))
        base = tl.where(m_new == -float("inf"), 0.0, m_new)
        s = s * tl.exp2((m - base) * 1.4426950408889634) \
            + tl.sum(tl.exp2((x - base) * 1.4426950408889634), axis=0)
        m = m_new
    lse = tl.where(m == -float("inf"), 0.0, m) + tl.log2(s) * 0.6931471805599453
    for start in range(0, n_cols, BLOCK_N):
        if EVEN:
            x = tl.load(x_ptr + row + start + cols, eviction_policy="evict_first").to(tl.float32)
            tl.store(y_ptr + row + start + cols, (x - lse).to(y_ptr.dtype.element_ty))
        else:
            mask = start + cols < n_cols
            x = tl.load(x_ptr + row + start + cols, mask=mask, other=0.0,
                        eviction_policy="evict_first").to(tl.float32)
            tl.store(y_ptr + row + start + cols, (x - lse).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.dim() != 2 or self.dim not in (1, -1):
            raise ValueError("this kernel computes log-softmax over dim 1 of a 2-D tensor")
        n_rows, n_cols = x.shape
        xc = x.contiguous()
        y = torch.empty_like(xc)
        if n_rows > 0 and n_cols > 0:
            block = min(BLOCK_N, triton.next_power_of_2(n_cols))
            _log_softmax_row_kernel[(n_rows,)](xc, y, n_cols, BLOCK_N=block, EVEN=(n_cols % block == 0),
                                               num_warps=NUM_WARPS)
        return y
