"""
---
op: rotary_embedding_neox
strategy: one-head-per-program-2d-grid
techniques: [gather, 2d-grid, fp32-compute, masked-tail, partial-rotary]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4], default: 1}
requires: []
sources:
  - https://arxiv.org/abs/2104.09864 (Su et al., RoFormer)
---
A 2D grid of (token, head) with the query heads first and the key heads after them; each program
rotates one head vector (a few hundred bytes), re-reading the token's cos/sin row, which the other
heads of the token have usually brought into L1/L2. Tiny programs with a single warp give the most
parallelism, which is what decode batches need (32 tokens x 40 heads = 1280 programs instead of
32); at prefill the per-program overhead and the repeated cos/sin reads make the per-token kernel
cheaper.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 1


@triton.jit
def _rope_neox_head(pos_ptr, q_ptr, k_ptr, qo_ptr, ko_ptr, cache_ptr, n_heads, n_kv_heads, head_dim,
                    rot_half, HALF: tl.constexpr, REST: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    head = tl.program_id(1)
    if head < n_heads:
        src = q_ptr + (tok * n_heads + head) * head_dim
        dst = qo_ptr + (tok * n_heads + head) * head_dim
    else:
        src = k_ptr + (tok * n_kv_heads + head - n_heads) * head_dim
        dst = ko_ptr + (tok * n_kv_heads + head - n_heads) * head_dim
    pos = tl.load(pos_ptr + tok).to(tl.int64)
    i = tl.arange(0, HALF)
    m = i < rot_half
    cos = tl.load(cache_ptr + pos * 2 * rot_half + i, mask=m, other=0.0).to(tl.float32)
    sin = tl.load(cache_ptr + pos * 2 * rot_half + rot_half + i, mask=m, other=0.0).to(tl.float32)
    x1 = tl.load(src + i, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(src + rot_half + i, mask=m, other=0.0).to(tl.float32)
    tl.store(dst + i, (x1 * cos - x2 * sin).to(dst.dtype.element_ty), mask=m)
    tl.store(dst + rot_half + i, (x2 * cos + x1 * sin).to(dst.dtype.element_ty), mask=m)
    j = 2 * rot_half + tl.arange(0, REST)
    tl.store(dst + j, tl.load(src + j, mask=j < head_dim, other=0.0), mask=j < head_dim)


class ModelNew(torch.nn.Module):
    def __init__(self, head_dim: int, rotary_dim: int, max_position: int, base: float = 10000.0):
        super().__init__()
        self.head_dim, self.rotary_dim = head_dim, rotary_dim
        self.register_buffer("cos_sin_cache", torch.empty(max_position, rotary_dim))

    def forward(self, positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor):
        q = query.contiguous()
        k = key.contiguous()
        pos = positions.contiguous()
        qo = torch.empty_like(q)
        ko = torch.empty_like(k)
        n_tokens = q.shape[0]
        n_heads = q.shape[1] // self.head_dim
        n_kv_heads = k.shape[1] // self.head_dim
        if n_tokens > 0:
            rot_half = self.rotary_dim // 2
            _rope_neox_head[(n_tokens, n_heads + n_kv_heads)](
                pos, q, k, qo, ko, self.cos_sin_cache, n_heads, n_kv_heads, self.head_dim, rot_half,
                HALF=triton.next_power_of_2(rot_half),
                REST=triton.next_power_of_2(max(self.head_dim - self.rotary_dim, 1)), num_warps=NUM_WARPS,
            )
        return qo, ko
