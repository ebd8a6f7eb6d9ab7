"""
---
op: silu_and_mul
strategy: persistent-row-col-tiles
techniques: [persistent-grid, 2d-tile, multi-row-per-program, eviction-hints, unmasked-even-path, fp32-compute, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4], default: 1}
  BLOCK_D: {values: [1024, 2048], default: 2048}
  PROGRAMS_PER_SM: {values: [4, 8, 16], default: 8}
  ELEMS_PER_THREAD: {values: [8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/activation_kernels.cu (act_and_mul_kernel)
---
A persistent grid (PROGRAMS_PER_SM programs per SM) walks [ROWS, BLOCK_D] output tiles with a grid
stride, column tiles of a row band first so neighbouring programs stream neighbouring memory. Each
tile loads the gate and up halves (contiguous, 128-bit loads since d is a multiple of 8 in practice,
evict_first: they are read once), computes silu in fp32, rounds it to the input dtype as vLLM does,
multiplies and stores. When d is a multiple of BLOCK_D and ROWS divides the rows, every mask is
dropped. Warps = ROWS*BLOCK_D/(32*ELEMS_PER_THREAD), clamped to 1..16. No tail wave and no per-tile
launch cost: aimed at prefill.
"""

import torch
import triton
import triton.language as tl

ROWS = 1
BLOCK_D = 2048
PROGRAMS_PER_SM = 8
ELEMS_PER_THREAD = 8


@triton.jit
def _silu_and_mul_persistent(x_ptr, y_ptr, n_rows, d, n_col_tiles, n_tiles,
                             ROWS: tl.constexpr, BLOCK_D: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    rr = tl.arange(0, ROWS).to(tl.int64)
    cc = tl.arange(0, BLOCK_D)
    for t in tl.range(pid, n_tiles, nprog, num_stages=1):
        rt = t // n_col_tiles
        ct = t - rt * n_col_tiles
        rows = rt * ROWS + rr
        cols = ct * BLOCK_D + cc
        src = x_ptr + rows[:, None] * (2 * d) + cols[None, :]
        dst = y_ptr + rows[:, None] * d + cols[None, :]
        if EVEN:
            a = tl.load(src, eviction_policy="evict_first").to(tl.float32)
            b = tl.load(src + d, eviction_policy="evict_first").to(tl.float32)
        else:
            mask = (rows[:, None] < n_rows) & (cols[None, :] < d)
            a = tl.load(src, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
            b = tl.load(src + d, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        act = (a / (1.0 + tl.exp(-a))).to(y_ptr.dtype.element_ty).to(tl.float32)
        out = (act * b).to(y_ptr.dtype.element_ty)
        if EVEN:
            tl.store(dst, out)
        else:
            tl.store(dst, out, mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = x.shape[-1] // 2
        x2 = x.reshape(-1, 2 * d).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty((n_rows, d), dtype=x.dtype, device=x.device)
        if y.numel() > 0:
            sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 2
            n_col_tiles = triton.cdiv(d, BLOCK_D)
            n_tiles = triton.cdiv(n_rows, ROWS) * n_col_tiles
            warps = max(1, min(16, triton.next_power_of_2(max(1, ROWS * BLOCK_D // (32 * ELEMS_PER_THREAD)))))
            _silu_and_mul_persistent[(max(1, min(n_tiles, sms * PROGRAMS_PER_SM)),)](
                x2, y, n_rows, d, n_col_tiles, n_tiles, ROWS=ROWS, BLOCK_D=BLOCK_D,
                EVEN=(d % BLOCK_D == 0 and n_rows % ROWS == 0), num_warps=warps,
            )
        return y.view(*x.shape[:-1], d)
