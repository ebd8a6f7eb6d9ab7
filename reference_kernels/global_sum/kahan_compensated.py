"""
---
op: global_sum
strategy: persistent-kahan-compensated
techniques: [compensated-summation, kahan, persistent-kernel, grid-stride-loop, two-kernel-tree, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 4}
  BLOCK: {values: [512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://en.wikipedia.org/wiki/Kahan_summation_algorithm
  - https://docs.nvidia.com/cuda/floating-point/index.html
---
The persistent grid-stride reduction with Kahan-compensated lanes: each lane keeps its running
sum s and a compensation c holding the low-order bits the last addition lost (y = x - c;
t = s + y; c = (t - s) - y; s = t), so a lane's long sequential chain of additions is almost
exact in fp32 instead of drifting by up to one rounding per add; the lanes are then combined by a
tree (tl.sum of s - c, whose error grows only with log BLOCK) and the few hundred partials by a
second one-program kernel. Four flops per element instead of one, which a bandwidth-bound kernel
absorbs for free, for an fp32 result much closer to a float64 sum: the choice for long or badly
conditioned sums (loss totals, norms of large tensors) where plain fp32 accumulation drifts. It
relies on the compiler not reassociating floating-point adds, which Triton does not do by
default. Deterministic for a given grid size.
"""

import torch
import triton
import triton.language as tl

PROGRAMS_PER_SM = 4
BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _kahan_partials(x_ptr, part_ptr, n, n_programs, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    s = tl.zeros([BLOCK], dtype=tl.float32)
    c = tl.zeros([BLOCK], dtype=tl.float32)
    for blk in range(pid, tl.cdiv(n, BLOCK), n_programs):
        idx = tl.cast(blk, tl.int64) * BLOCK + offs
        y = tl.load(x_ptr + idx, mask=idx < n, other=0.0).to(tl.float32) - c
        t = s + y
        c = (t - s) - y
        s = t
    tl.store(part_ptr + pid, tl.sum(s - c, axis=0))


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
        _kahan_partials[(n_programs,)](flat, partials, n, n_programs, BLOCK=BLOCK, num_warps=NUM_WARPS)
        _sum_partials[(1,)](partials, y, n_programs, BLOCK=triton.next_power_of_2(n_programs), num_warps=4)
        return y
