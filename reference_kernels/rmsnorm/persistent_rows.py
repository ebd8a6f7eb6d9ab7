"""
---
op: rmsnorm
strategy: persistent-grid-stride-rows
techniques: [persistent-grid, multi-row-per-program, whole-row-in-registers, weight-loaded-once, eviction-hints, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4], default: 1}
  PROGRAMS_PER_SM: {values: [2, 4, 8], default: 4}
  ELEMS_PER_THREAD: {values: [8, 16], default: 16}
  NUM_STAGES: {values: [1, 2], default: 1}
requires: []
sources:
  - https://github.com/triton-lang/triton/blob/main/python/tutorials/02-fused-softmax.py (persistent rows, grid from the SM count)
  - https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/triton_heuristics.py (persistent_reduction)
---
A persistent grid of PROGRAMS_PER_SM programs per SM walks the rows with a grid stride, ROWS rows
(a [ROWS, next_pow2(hidden)] tile, whole rows in registers) per step. The weight is loaded once per
program with evict_last and reused for every row it normalizes; the streamed input is loaded with
evict_first so it does not push the weight or the output out of L2. The warp count follows from
the tile: ROWS*next_pow2(hidden) / (32*ELEMS_PER_THREAD), clamped to 1..16, so no point of the
space spills the row out of registers. No tail wave and no per-row
launch or weight re-read: aimed at prefill (thousands of rows). NUM_STAGES lets the compiler
pipeline the next tile's load across loop iterations (1 = no pipelining). The normalized value is
rounded to the input dtype before the weight multiply, as the reference does.
"""

import torch
import triton
import triton.language as tl

ROWS = 1
PROGRAMS_PER_SM = 4
ELEMS_PER_THREAD = 16
NUM_STAGES = 1


@triton.jit
def _rmsnorm_persistent(x_ptr, w_ptr, y_ptr, n_rows, n_cols, x_stride, y_stride, eps, inv_n,
                        ROWS: tl.constexpr, BLOCK: tl.constexpr, NUM_STAGES: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    cmask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    n_tiles = tl.cdiv(n_rows, ROWS)
    for tile in tl.range(pid, n_tiles, nprog, num_stages=NUM_STAGES):
        rows = tile * ROWS + tl.arange(0, ROWS).to(tl.int64)
        mask = (rows[:, None] < n_rows) & cmask[None, :]
        x = tl.load(x_ptr + rows[:, None] * x_stride + cols[None, :], mask=mask, other=0.0,
                    eviction_policy="evict_first").to(tl.float32)
        inv_rms = tl.rsqrt(tl.sum(x * x, axis=1) * inv_n + eps)
        xn = (x * inv_rms[:, None]).to(y_ptr.dtype.element_ty).to(tl.float32)
        y = xn * w[None, :]
        tl.store(y_ptr + rows[:, None] * y_stride + cols[None, :], y.to(y_ptr.dtype.element_ty), mask=mask)


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
            grid = (max(1, min(triton.cdiv(n_rows, ROWS), sms * PROGRAMS_PER_SM)),)
            _rmsnorm_persistent[grid](
                x2, self.weight, y, n_rows, hidden, x2.stride(0), y.stride(0), self.eps, 1.0 / hidden,
                ROWS=ROWS, BLOCK=triton.next_power_of_2(hidden), NUM_STAGES=NUM_STAGES,
                num_warps=_warps(ROWS * triton.next_power_of_2(hidden)),
            )
        return y.view(x.shape)
