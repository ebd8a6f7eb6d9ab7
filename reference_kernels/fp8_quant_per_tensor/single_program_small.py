"""
---
op: fp8_quant_per_tensor
strategy: single-program-for-small-else-partial-max
techniques: [single-launch, whole-tensor-in-registers, two-kernel-reduction, deterministic-reduction, fp8-scaling, round-to-nearest-even, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm89, sm90, gfx942]
params:
  SMALL_MAX: {values: [4096, 8192, 16384, 32768], default: 16384}
  ELEMS_PER_THREAD: {values: [8, 16, 32, 64], default: 16}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/quantization/fp8/common.cu (dynamic per-tensor scale = amax / 448)
  - https://github.com/pytorch/pytorch/blob/main/torch/_inductor/runtime/triton_heuristics.py (a whole reduction in one program when it is small)
---
Decode-sized tensors (at most SMALL_MAX elements) are quantized by ONE program in ONE launch: the
whole tensor is loaded once into registers (a next-power-of-two tile, ELEMS_PER_THREAD values per
thread, 16-byte loads), reduced to its absolute maximum, and the same registers are scaled, rounded
to the e4m3 grid (explicit round-to-nearest-even) and stored with the scale, so the critical path
is one DRAM round trip, one block reduction and the stores. Larger tensors keep the deterministic
multi-program layout: a persistent grid of at most 512 programs writes per-program maxima, and a
second kernel, one program per 4096-element chunk, re-reduces them, quantizes its chunk and
(program 0) stores the scale. No atomics, no memset; two torch.empty allocations on the small path.
Why: Nsight Compute on the H200 at llama3-70b-tp8-down-decode-1 (1 x 3584) measured
partial_max_two_kernels at 2 launches (_partial_amax 2.30 us + _quant_block 2.46 us, each one
program of 256 threads, 4.77 us device) against torch.compile's single fused reduction kernel (one
program of 512 threads, 3.07 us, which sweeps the row twice in a loop); the shape was even timed
with events (28.06 us against 6.53 us) because two launches plus three allocations pushed the host
probe over the 20 us graph threshold. An earlier sweep on the H200 (2026-12-04, the session's own
graph replay timer, 0.25 us resolution, not the harness): decode-1 2.47 us single program against
4.09 us for partial_max_two_kernels and 2.47 us for torch.compile. The single program wins up to
16384 elements (2 x 4096: 2.72 against 4.72 us two-kernel; 4 x 4096: 3.72 against 4.47 us) and loses
beyond (7 x 3584: 5.47 against 4.72 us; 16 x 4096: 9.47 against 4.72 us), so the threshold defaults
to 16384 elements; the large path is partial_max_two_kernels'.
Measured by the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`, bf16 input):
ahead of torch.compile at all six shapes. The single program runs only at tp8-down-decode-1 (3584
elements): 2.94 us by graph replay, 1.50x torch.compile (4.40), the fastest of the three kernels.
Every other shape exceeds SMALL_MAX and runs the same two kernels as partial_max_two_kernels:
8b-qkv-decode-32 5.19 us (1.16x) and 70b-qkv-decode-256 7.44 us (1.94x) by graph replay, where
partial_max_two_kernels was timed with events (25.4 and 25.0 us), so that gap is the timing method,
not the code; prefill (events) 8b-qkv 51.1 us (1.16x), 8b-down 160 (3.36x), 70b-qkv 53.0 (2.42x),
within 2 % of partial_max_two_kernels either way (1 % behind it at 70b-qkv).
"""

import torch
import triton
import triton.language as tl

SMALL_MAX = 16384
ELEMS_PER_THREAD = 16

MAX_PARTIALS = 512  # programs of the large path's max kernel
LARGE_BLOCK = 4096  # the large path's chunk, as partial_max_two_kernels (measured there)


@triton.jit
def _round_e4m3(v):
    """Round fp32 values with |v| <= 448 to the nearest float8_e4m3fn value (ties to even)."""
    bits = v.to(tl.int32, bitcast=True)
    bits = (bits + 0x7FFFF + ((bits >> 20) & 1)) & -1048576  # keep 3 mantissa bits
    normal = bits.to(tl.float32, bitcast=True)
    sub = (v + 24576.0) - 24576.0  # subnormal e4m3: multiples of 2^-9
    return tl.where(tl.abs(v) < 0.015625, sub, normal)


@triton.jit
def _quantize(x, scale):
    return _round_e4m3(tl.clamp(x / scale, -448.0, 448.0))


@triton.jit
def _quant_one_program(x_ptr, q_ptr, s_ptr, n, TILE: tl.constexpr, EVEN: tl.constexpr):
    # the whole tensor in registers: one load, one block reduction, the same registers quantized
    offs = tl.arange(0, TILE)
    if EVEN:
        x = tl.load(x_ptr + offs).to(tl.float32)
    else:
        x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    scale = tl.maximum(tl.max(tl.abs(x), axis=0) / 448.0, 1.0 / (448.0 * 512.0))
    q = _quantize(x, scale).to(q_ptr.dtype.element_ty)
    if EVEN:
        tl.store(q_ptr + offs, q)
    else:
        tl.store(q_ptr + offs, q, mask=offs < n)
    tl.store(s_ptr, scale)


@triton.jit
def _partial_amax(x_ptr, part_ptr, n, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0)
    offs = tl.arange(0, BLOCK).to(tl.int64)
    run = tl.zeros([BLOCK], dtype=tl.float32)
    for b in range(pid, n_blocks, step):
        idx = offs + b * BLOCK
        x = tl.load(x_ptr + idx, mask=idx < n, other=0.0).to(tl.float32)
        run = tl.maximum(run, tl.abs(x))
    tl.store(part_ptr + pid, tl.max(run, axis=0))


@triton.jit
def _quant_chunk(x_ptr, q_ptr, s_ptr, part_ptr, n, n_parts, BLOCK: tl.constexpr, PARTS: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.arange(0, PARTS)
    amax = tl.max(tl.load(part_ptr + p, mask=p < n_parts, other=0.0), axis=0)
    scale = tl.maximum(amax / 448.0, 1.0 / (448.0 * 512.0))
    idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = idx < n
    x = tl.load(x_ptr + idx, mask=m, other=0.0).to(tl.float32)
    tl.store(q_ptr + idx, _quantize(x, scale).to(q_ptr.dtype.element_ty), mask=m)
    if pid == 0:
        tl.store(s_ptr, scale)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        xc = x if x.is_contiguous() else x.contiguous()
        n = xc.numel()
        q = torch.empty(x.shape, dtype=torch.float8_e4m3fn, device=x.device)
        scale = torch.empty((1,), dtype=torch.float32, device=x.device)
        if n <= SMALL_MAX:
            tile = triton.next_power_of_2(max(n, 1))
            warps = max(1, min(16, tile // (32 * ELEMS_PER_THREAD)))
            _quant_one_program[(1,)](xc, q, scale, n, TILE=tile, EVEN=(n == tile), num_warps=warps)
            return q, scale
        n_blocks = triton.cdiv(n, LARGE_BLOCK)
        n_parts = min(n_blocks, MAX_PARTIALS)
        partials = torch.empty((n_parts,), dtype=torch.float32, device=x.device)
        _partial_amax[(n_parts,)](xc, partials, n, n_blocks, BLOCK=LARGE_BLOCK, num_warps=8)
        _quant_chunk[(n_blocks,)](xc, q, scale, partials, n, n_parts, BLOCK=LARGE_BLOCK,
                                  PARTS=triton.next_power_of_2(n_parts), num_warps=8)
        return q, scale
