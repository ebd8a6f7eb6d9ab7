"""
---
op: rmsnorm
strategy: persistent-rows-register-prefetch
techniques: [persistent-grid, software-pipelining, register-double-buffer, whole-row-in-registers, weight-loaded-once, eviction-hints, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2], default: 1}
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 2}
  ELEMS_PER_THREAD: {values: [8, 16, 32], default: 16}
requires: []
sources:
  - https://github.com/triton-lang/triton/blob/main/python/tutorials/02-fused-softmax.py (persistent rows)
  - https://developer.nvidia.com/blog/how-access-global-memory-efficiently-cuda-c-kernels/ (bytes in flight)
---
A persistent grid (PROGRAMS_PER_SM programs per SM, grid stride over tiles of ROWS rows) that
software-pipelines by hand in registers: before reducing and storing tile i the program issues the
loads of its next tile i + grid, so one tile's DRAM latency overlaps the previous tile's reduction,
scaling and store, and every program always has a row of loads in flight. The weight is read once per
program (evict_last), the input streamed with evict_first, the prefetched tile is kept in the input
dtype (half the registers of fp32). The warp count is ROWS*next_pow2(hidden)/(32*ELEMS_PER_THREAD),
clamped to 1..16. Meant for prefill row counts with rows of 2K-16K elements, where few resident
programs per SM otherwise leave the memory system idle between rows.
"""

import torch
import triton
import triton.language as tl

ROWS = 1
PROGRAMS_PER_SM = 2
ELEMS_PER_THREAD = 16


@triton.jit
def _rmsnorm_prefetch(x_ptr, w_ptr, y_ptr, n_rows, n_cols, x_stride, y_stride, eps, inv_n,
                      ROWS: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    cmask = cols < n_cols
    r = tl.arange(0, ROWS).to(tl.int64)
    rows = pid * ROWS + r
    mask = (rows[:, None] < n_rows) & cmask[None, :]
    x_next = tl.load(x_ptr + rows[:, None] * x_stride + cols[None, :], mask=mask, other=0.0,
                     eviction_policy="evict_first")
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    n_tiles = tl.cdiv(n_rows, ROWS)
    for tile in tl.range(pid, n_tiles, nprog, num_stages=1):
        x = x_next.to(tl.float32)
        rows = tile * ROWS + r
        nrows = rows + nprog * ROWS
        nmask = (nrows[:, None] < n_rows) & cmask[None, :]
        x_next = tl.load(x_ptr + nrows[:, None] * x_stride + cols[None, :], mask=nmask, other=0.0,
                         eviction_policy="evict_first")
        inv_rms = tl.rsqrt(tl.sum(x * x, axis=1) * inv_n + eps)
        xn = (x * inv_rms[:, None]).to(y_ptr.dtype.element_ty).to(tl.float32)
        mask = (rows[:, None] < n_rows) & cmask[None, :]
        tl.store(y_ptr + rows[:, None] * y_stride + cols[None, :], (xn * w[None, :]).to(y_ptr.dtype.element_ty),
                 mask=mask)


def _warps(tile: int) -> int:
    return max(1, min(16, triton.next_power_of_2(max(1, tile // (32 * ELEMS_PER_THREAD)))))


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 2
            block = triton.next_power_of_2(hidden)
            grid = (max(1, min(triton.cdiv(n_rows, ROWS), sms * PROGRAMS_PER_SM)),)
            _rmsnorm_prefetch[grid](
                x2, self.weight, y, n_rows, hidden, x2.stride(0), y.stride(0), self.eps, 1.0 / hidden,
                ROWS=ROWS, BLOCK=block, num_warps=_warps(ROWS * block), num_stages=1,
            )
        return y.view(x.shape)
