"""
---
op: fp8_quant_per_tensor
strategy: persistent-partial-max-then-quantize
techniques: [persistent-grid, two-kernel-reduction, deterministic-reduction, fp8-scaling, round-to-nearest-even, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm89, sm90, gfx942]
params:
  BLOCK: {values: [512, 1024, 2048, 4096, 8192], default: 4096}
  MAX_PARTIALS: {values: [64, 128, 256, 512, 1024], default: 512}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/quantization/fp8/common.cu (dynamic per-tensor scale = amax / 448)
---
A first kernel with a persistent grid of at most MAX_PARTIALS programs strides over the flattened
tensor in BLOCK chunks and writes one absolute maximum per program. A second kernel, one program
per BLOCK chunk, re-reduces those few partials (at most MAX_PARTIALS floats, from L2), derives the
scale, quantizes its chunk with explicit round-to-nearest-even onto the e4m3 grid and stores fp8;
program 0 also writes the scale. No atomics and no memset, so the result is deterministic and the
call is exactly two launches; x is read twice, the price of needing the global maximum first.
Nsight Compute on the H200 (2026-12-04, docs/results/h200-2026-12-04-losers): at
llama3-70b-tp8-down-decode-1 (3584 values) its two launches of one 256-thread program each took 4.77
us of device time, against torch.compile's one fused program of 512 threads, 3.07 us; the suite
timed that shape with events (28.06 us) because two launches and their allocations kept the
host-side probe above the 20 us graph threshold.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096
MAX_PARTIALS = 512
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
def _partial_amax(x_ptr, part_ptr, n, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0)
    offs = tl.arange(0, BLOCK).to(tl.int64)
    run = tl.zeros([BLOCK], dtype=tl.float32)
    for b in range(pid, n_blocks, step):
        idx = offs + b * BLOCK  # b * BLOCK < n < 2^31
        x = tl.load(x_ptr + idx, mask=idx < n, other=0.0).to(tl.float32)
        run = tl.maximum(run, tl.abs(x))
    tl.store(part_ptr + pid, tl.max(run, axis=0))


@triton.jit
def _quant_block(x_ptr, q_ptr, s_ptr, part_ptr, n, n_parts, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.arange(0, PARTS)
    amax = tl.max(tl.load(part_ptr + p, mask=p < n_parts, other=0.0), axis=0)
    scale = tl.maximum(amax / 448.0, 1.0 / (448.0 * 512.0))
    idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = idx < n
    x = tl.load(x_ptr + idx, mask=m, other=0.0).to(tl.float32)
    q = _round_e4m3(tl.clamp(x / scale, -448.0, 448.0))
    tl.store(q_ptr + idx, q.to(q_ptr.dtype.element_ty), mask=m)
    if pid == 0:
        tl.store(s_ptr, scale)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        xc = x.contiguous()
        n = xc.numel()
        q = torch.empty(x.shape, dtype=torch.float8_e4m3fn, device=x.device)
        scale = torch.empty((1,), dtype=torch.float32, device=x.device)
        n_blocks = max(1, triton.cdiv(n, BLOCK))
        n_parts = min(n_blocks, MAX_PARTIALS)
        partials = torch.empty((n_parts,), dtype=torch.float32, device=x.device)
        _partial_amax[(n_parts,)](xc, partials, n, n_blocks, BLOCK=BLOCK, num_warps=NUM_WARPS)
        _quant_block[(n_blocks,)](xc, q, scale, partials, n, n_parts, BLOCK=BLOCK,
                                  PARTS=triton.next_power_of_2(n_parts), num_warps=NUM_WARPS)
        return q, scale
