"""
---
op: fused_add_rmsnorm
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
  - https://github.com/vllm-project/vllm/blob/main/csrc/layernorm_kernels.cu (fused_add_rms_norm)
---
A persistent grid of PROGRAMS_PER_SM programs per SM walks the rows with a grid stride, ROWS rows
(a [ROWS, next_pow2(hidden)] tile, whole rows in registers) per step: load x and residual
(evict_first, they are streamed), add and round to the input dtype, store residual_out, reduce the
sum of squares in fp32 and store the scaled rows. The weight is loaded once per program (evict_last)
and reused for every row. The warp count follows from the tile, ROWS*next_pow2(hidden) /
(32*ELEMS_PER_THREAD) clamped to 1..16; NUM_STAGES lets the compiler pipeline the next tile's loads
(1 = none). Aimed at prefill: no tail wave, no per-row weight re-read.
"""

import torch
import triton
import triton.language as tl

ROWS = 1
PROGRAMS_PER_SM = 4
ELEMS_PER_THREAD = 16
NUM_STAGES = 1


@triton.jit
def _add_rmsnorm_persistent(x_ptr, r_ptr, w_ptr, y_ptr, ro_ptr, n_rows, n_cols, eps, inv_n,
                            ROWS: tl.constexpr, BLOCK: tl.constexpr, NUM_STAGES: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    cols = tl.arange(0, BLOCK)
    cmask = cols < n_cols
    w = tl.load(w_ptr + cols, mask=cmask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    n_tiles = tl.cdiv(n_rows, ROWS)
    for tile in tl.range(pid, n_tiles, nprog, num_stages=NUM_STAGES):
        rows = tile * ROWS + tl.arange(0, ROWS).to(tl.int64)
        offs = rows[:, None] * n_cols + cols[None, :]
        mask = (rows[:, None] < n_rows) & cmask[None, :]
        x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        r = tl.load(r_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        s = (x + r).to(ro_ptr.dtype.element_ty)
        tl.store(ro_ptr + offs, s, mask=mask)
        s = s.to(tl.float32)
        inv_rms = tl.rsqrt(tl.sum(s * s, axis=1) * inv_n + eps)
        sn = (s * inv_rms[:, None]).to(y_ptr.dtype.element_ty).to(tl.float32)
        tl.store(y_ptr + offs, (sn * w[None, :]).to(y_ptr.dtype.element_ty), mask=mask)


def _warps(tile: int) -> int:
    return max(1, min(16, triton.next_power_of_2(max(1, tile // (32 * ELEMS_PER_THREAD)))))


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        r2 = residual.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        ro = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 2
            block = triton.next_power_of_2(hidden)
            grid = (max(1, min(triton.cdiv(n_rows, ROWS), sms * PROGRAMS_PER_SM)),)
            _add_rmsnorm_persistent[grid](
                x2, r2, self.weight, y, ro, n_rows, hidden, self.eps, 1.0 / hidden,
                ROWS=ROWS, BLOCK=block, NUM_STAGES=NUM_STAGES, num_warps=_warps(ROWS * block),
            )
        return y.view(x.shape), ro.view(x.shape)
