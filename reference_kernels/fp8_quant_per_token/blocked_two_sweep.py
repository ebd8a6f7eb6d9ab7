"""
---
op: fp8_quant_per_token
strategy: blocked-columns-two-sweeps
techniques: [column-blocking, fp8-scaling, round-to-nearest-even, two-pass, masked-tail, eviction-hints]
dsl: triton
vendors: [nvidia, amd]
archs: [sm89, sm90, gfx942]
params:
  BLOCK_N: {values: [256, 512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/quantization/fp8/common.cu (dynamic per-token scale = amax / 448, floor 1 / (448 * 512))
---
One program per token walks the row in BLOCK_N chunks twice: the first sweep keeps a running
absolute maximum, the second re-reads each chunk (usually from L2, the row was just touched),
divides by the scale, rounds to the e4m3 grid (ties to even) and stores fp8. Register use is bounded
by BLOCK_N whatever the hidden size, so it keeps occupancy on wide rows (14336-wide down-projection
inputs) where a whole-row kernel spills or needs 16 warps; it pays a second read of the row, which
L2 mostly absorbs: the first sweep loads with evict_last and the second with evict_first, so the row
stays in L2 between them and leaves it after (torch.compile's generated two-sweep kernel for this
operator, read from its cache on the H100 in session 38, does the same). On a GPU the rounding is
the hardware's fp8 conversion (HW_CAST, as in one_row_registers); the integer rounding remains for
the interpreter. On the H100 (session 38) down-prefill-8k went from 191.02 to 164.90 us;
one_row_registers (112.42) stays the faster kernel at every shape.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 2048
NUM_WARPS = 4


@triton.jit
def _round_e4m3(v):
    """Round fp32 values with |v| <= 448 to the nearest float8_e4m3fn value (ties to even)."""
    bits = v.to(tl.int32, bitcast=True)
    bits = (bits + 0x7FFFF + ((bits >> 20) & 1)) & -1048576  # keep 3 mantissa bits
    normal = bits.to(tl.float32, bitcast=True)
    sub = (v + 24576.0) - 24576.0  # subnormal e4m3: multiples of 2^-9
    return tl.where(tl.abs(v) < 0.015625, sub, normal)


@triton.jit
def _quant_row_blocked(x_ptr, q_ptr, s_ptr, n_cols, x_stride, q_stride, BLOCK_N: tl.constexpr, HW_CAST: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * x_stride
    q_row = q_ptr + row * q_stride
    cols = tl.arange(0, BLOCK_N)
    run = tl.zeros([BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        m = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=m, other=0.0, eviction_policy="evict_last").to(tl.float32)
        run = tl.maximum(run, tl.abs(x))
    scale = tl.maximum(tl.max(run, axis=0) / 448.0, 1.0 / (448.0 * 512.0))
    for start in range(0, n_cols, BLOCK_N):
        m = start + cols < n_cols
        x = tl.load(x_row + start + cols, mask=m, other=0.0, eviction_policy="evict_first").to(tl.float32)
        q = tl.clamp(x / scale, -448.0, 448.0)
        q = q if HW_CAST else _round_e4m3(q)
        tl.store(q_row + start + cols, q.to(q_ptr.dtype.element_ty), mask=m)
    tl.store(s_ptr + row, scale)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        n_rows = x2.shape[0]
        q = torch.empty((n_rows, hidden), dtype=torch.float8_e4m3fn, device=x.device)
        scale = torch.empty((n_rows, 1), dtype=torch.float32, device=x.device)
        if n_rows > 0:
            _quant_row_blocked[(n_rows,)](x2, q, scale, hidden, x2.stride(0), q.stride(0),
                                          BLOCK_N=BLOCK_N, HW_CAST=x.device.type != "cpu", num_warps=NUM_WARPS)
        return q.view(*x.shape[:-1], hidden), scale.view(*x.shape[:-1], 1)
