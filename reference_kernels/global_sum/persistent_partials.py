"""
---
op: global_sum
strategy: persistent-grid-partials
techniques: [persistent-kernel, grid-stride-loop, two-kernel-tree, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 4}
  BLOCK: {values: [512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://developer.nvidia.com/blog/cuda-pro-tip-write-flexible-kernels-grid-stride-loops/
---
A fixed grid of PROGRAMS_PER_SM programs per SM (not one per block of data) strides over the
tensor: program p adds blocks p, p + P, p + 2P, ... into a private fp32 vector accumulator and writes
one partial at the end. The partials buffer is then only P floats (a few hundred), so the second,
single-program kernel is trivial, and no atomics are used, so the result is bitwise reproducible for
a given grid size. Compared with one program per block it launches far fewer programs and keeps
every SM busy with independent streaming loads; it is the usual shape of a bandwidth-bound
whole-tensor reduction on a GPU.
"""

import torch
import triton
import triton.language as tl

PROGRAMS_PER_SM = 4
BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _strided_partials(x_ptr, part_ptr, n, n_programs, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    n_blocks = tl.cdiv(n, BLOCK)
    for blk in range(pid, n_blocks, n_programs):
        idx = tl.cast(blk, tl.int64) * BLOCK + offs
        acc += tl.load(x_ptr + idx, mask=idx < n, other=0.0).to(tl.float32)
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _sum_partials(part_ptr, y_ptr, n_parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
    tl.store(y_ptr, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1).contiguous()
        n = flat.numel()
        y = torch.empty((), dtype=x.dtype, device=x.device)
        sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.is_cuda else 2
        n_programs = max(1, min(sms * PROGRAMS_PER_SM, triton.cdiv(n, BLOCK)))
        partials = torch.empty(n_programs, dtype=torch.float32, device=x.device)
        _strided_partials[(n_programs,)](flat, partials, n, n_programs, BLOCK=BLOCK, num_warps=NUM_WARPS)
        _sum_partials[(1,)](partials, y, n_programs, BLOCK=triton.next_power_of_2(n_programs), num_warps=4)
        return y
