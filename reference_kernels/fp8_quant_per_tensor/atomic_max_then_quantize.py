"""
---
op: fp8_quant_per_tensor
strategy: atomic-max-then-quantize
techniques: [atomics, two-kernel-reduction, fp8-scaling, round-to-nearest-even, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm89, sm90, gfx942]
params:
  BLOCK_AMAX: {values: [1024, 2048, 4096, 8192, 16384], default: 8192}
  BLOCK_Q: {values: [512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/quantization/fp8/common.cu (segmented max reduction with a float atomic max, then quantization)
---
A one-program kernel sets the scale buffer to the scale floor 1 / (448 * 512) (its own launch
rather than torch.full, so all of the device time is this file's kernels); a first kernel, one program per
BLOCK_AMAX chunk, reduces its chunk's absolute maximum, divides by 448 and folds it into the scale
with a float atomic max (the values are non-negative, and rounding a quotient by a positive
constant is monotone, so the maximum of the per-chunk quotients is exactly amax / 448). A second
kernel quantizes BLOCK_Q chunks against that scale with explicit round-to-nearest-even onto the
e4m3 grid. It is vLLM's layout: one atomic per chunk is cheap, the two passes can use different
block sizes, and nothing is re-reduced in the second kernel.
"""

import torch
import triton
import triton.language as tl

BLOCK_AMAX = 8192
BLOCK_Q = 2048
NUM_WARPS = 8


@triton.jit
def _round_e4m3(v):
    """Round fp32 values with |v| <= 448 to the nearest float8_e4m3fn value (ties to even)."""
    bits = v.to(tl.int32, bitcast=True)
    bits = (bits + 0x7FFFF + ((bits >> 20) & 1)) & -1048576  # keep 3 mantissa bits
    normal = bits.to(tl.float32, bitcast=True)
    sub = (v + 24576.0) - 24576.0  # subnormal e4m3: multiples of 2^-9
    return tl.where(tl.abs(v) < 0.015625, sub, normal)


@triton.jit
def _init_scale(s_ptr, floor):
    tl.store(s_ptr, floor)


@triton.jit
def _amax_atomic(x_ptr, s_ptr, n, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + idx, mask=idx < n, other=0.0).to(tl.float32)
    tl.atomic_max(s_ptr, tl.max(tl.abs(x), axis=0) / 448.0)


@triton.jit
def _quantize(x_ptr, q_ptr, s_ptr, n, BLOCK: tl.constexpr):
    scale = tl.load(s_ptr)
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = idx < n
    x = tl.load(x_ptr + idx, mask=m, other=0.0).to(tl.float32)
    q = _round_e4m3(tl.clamp(x / scale, -448.0, 448.0))
    tl.store(q_ptr + idx, q.to(q_ptr.dtype.element_ty), mask=m)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        xc = x.contiguous()
        n = xc.numel()
        q = torch.empty(x.shape, dtype=torch.float8_e4m3fn, device=x.device)
        # the atomic target starts at the scale floor; the amax kernel raises it to amax / 448
        scale = torch.empty((1,), dtype=torch.float32, device=x.device)
        _init_scale[(1,)](scale, 1.0 / (448.0 * 512.0), num_warps=1)
        if n > 0:
            _amax_atomic[(triton.cdiv(n, BLOCK_AMAX),)](xc, scale, n, BLOCK=BLOCK_AMAX, num_warps=NUM_WARPS)
            _quantize[(triton.cdiv(n, BLOCK_Q),)](xc, q, scale, n, BLOCK=BLOCK_Q, num_warps=NUM_WARPS)
        return q, scale
