"""
---
op: global_sum
strategy: block-partials-atomic-add
techniques: [atomics, init-kernel, single-pass, fp32-accumulate, masked-tail, non-deterministic]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [1024, 2048, 4096, 8192, 16384], default: 8192}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.atomic_add.html
---
Each program reduces its BLOCK of elements in registers and adds the partial straight into the
output with one tl.atomic_add, so the data is swept in a single pass with no partials buffer and no
second reduction kernel (a tiny init kernel zeroes the accumulator first; fresh memory is not
zero). The order in which the atomics land varies from run to run, so the fp32 result is not
bitwise deterministic (differences are at the rounding level), and with very many programs the
atomics on one address serialize; a large BLOCK keeps their number small. Use it when
reproducibility is not required and the two-kernel latency matters.
"""

import torch
import triton
import triton.language as tl

BLOCK = 8192
NUM_WARPS = 8


@triton.jit
def _zero_scalar(acc_ptr):
    tl.store(acc_ptr, 0.0)


@triton.jit
def _block_atomic_sum(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.atomic_add(acc_ptr, tl.sum(x, axis=0))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1).contiguous()
        n = flat.numel()
        y = torch.empty((), dtype=torch.float32, device=x.device)
        _zero_scalar[(1,)](y)
        if n > 0:
            _block_atomic_sum[(triton.cdiv(n, BLOCK),)](flat, y, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        return y
