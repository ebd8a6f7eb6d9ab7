"""
---
op: global_sum
strategy: two-kernel-tree
techniques: [tree-reduction, two-kernel-tree, deterministic, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [1024, 2048, 4096, 8192, 16384], default: 8192}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf
---
The textbook tree: the first kernel launches one program per BLOCK elements and writes one fp32
partial each; the second kernel is a single program that sweeps the partials and writes the
scalar. Every program does exactly one load-reduce-store, so the first pass streams at full
bandwidth for large tensors; the grid is as large as the tensor needs. The cost is the partials
buffer (n / BLOCK floats) and a second launch, which dominates for small inputs. The summation
order is fixed, so the result is bitwise reproducible.
"""

import torch
import triton
import triton.language as tl

BLOCK = 8192
NUM_WARPS = 8


@triton.jit
def _block_sums(x_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0).to(tl.float32)
    tl.store(part_ptr + pid, tl.sum(x, axis=0))


@triton.jit
def _final_sum(part_ptr, y_ptr, n_parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_parts, BLOCK):
        idx = start + offs
        acc += tl.load(part_ptr + idx, mask=idx < n_parts, other=0.0)
    tl.store(y_ptr, tl.sum(acc, axis=0).to(y_ptr.dtype.element_ty))


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1).contiguous()
        n = flat.numel()
        y = torch.empty((), dtype=x.dtype, device=x.device)
        n_parts = max(1, triton.cdiv(n, BLOCK))
        partials = torch.empty(n_parts, dtype=torch.float32, device=x.device)
        _block_sums[(n_parts,)](flat, partials, n, BLOCK=BLOCK, num_warps=NUM_WARPS)
        _final_sum[(1,)](partials, y, n_parts, BLOCK=min(4096, triton.next_power_of_2(n_parts)), num_warps=8)
        return y
