"""
---
op: rotary_embedding_neox
strategy: one-token-per-program-all-heads
techniques: [gather, cos-sin-reuse-across-heads, 2d-tile, fp32-compute, masked-tail, partial-rotary]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  HEADS_PER_ITER: {values: [1, 2, 4, 8, 16, 32], default: 8}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/pos_encoding_kernels.cu (one block per token)
  - https://arxiv.org/abs/2104.09864 (Su et al., RoFormer)
---
One program per token, the layout of vLLM's CUDA rotary kernel: the program gathers the token's
cos/sin row once and applies it to all query heads and then all key heads, HEADS_PER_ITER heads at a
time as a [heads, rotary_dim/2] tile (NeoX halves: x1 = dims [0, r/2), x2 = [r/2, r)); dims past
rotary_dim are copied through. The cos/sin row is read once per token instead of once per head, and
each program has plenty of work at prefill; at small decode batches the grid is only n_tokens wide.
"""

import torch
import triton
import triton.language as tl

HEADS_PER_ITER = 8
NUM_WARPS = 4


@triton.jit
def _rotate_heads(x_ptr, o_ptr, tok, n_heads, cos, sin, head_dim, rot_half,
                  HB: tl.constexpr, HALF: tl.constexpr, REST: tl.constexpr):
    i = tl.arange(0, HALF)
    imask = i < rot_half
    j = 2 * rot_half + tl.arange(0, REST)
    jmask = j < head_dim
    for h0 in range(0, n_heads, HB):
        heads = h0 + tl.arange(0, HB)
        hmask = heads[:, None] < n_heads
        base = (tok * n_heads + heads[:, None]) * head_dim
        m = hmask & imask[None, :]
        x1 = tl.load(x_ptr + base + i[None, :], mask=m, other=0.0).to(tl.float32)
        x2 = tl.load(x_ptr + base + rot_half + i[None, :], mask=m, other=0.0).to(tl.float32)
        tl.store(o_ptr + base + i[None, :], (x1 * cos - x2 * sin).to(o_ptr.dtype.element_ty), mask=m)
        tl.store(o_ptr + base + rot_half + i[None, :], (x2 * cos + x1 * sin).to(o_ptr.dtype.element_ty), mask=m)
        mr = hmask & jmask[None, :]
        rest = tl.load(x_ptr + base + j[None, :], mask=mr, other=0.0)
        tl.store(o_ptr + base + j[None, :], rest, mask=mr)


@triton.jit
def _rope_neox_token(pos_ptr, q_ptr, k_ptr, qo_ptr, ko_ptr, cache_ptr, n_heads, n_kv_heads, head_dim,
                     rot_half, HB: tl.constexpr, HALF: tl.constexpr, REST: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    pos = tl.load(pos_ptr + tok).to(tl.int64)
    i = tl.arange(0, HALF)
    imask = i < rot_half
    cos = tl.load(cache_ptr + pos * 2 * rot_half + i, mask=imask, other=0.0).to(tl.float32)[None, :]
    sin = tl.load(cache_ptr + pos * 2 * rot_half + rot_half + i, mask=imask, other=0.0).to(tl.float32)[None, :]
    _rotate_heads(q_ptr, qo_ptr, tok, n_heads, cos, sin, head_dim, rot_half, HB, HALF, REST)
    _rotate_heads(k_ptr, ko_ptr, tok, n_kv_heads, cos, sin, head_dim, rot_half, HB, HALF, REST)


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
        if n_tokens > 0:
            rot_half = self.rotary_dim // 2
            _rope_neox_token[(n_tokens,)](
                pos, q, k, qo, ko, self.cos_sin_cache, q.shape[1] // self.head_dim,
                k.shape[1] // self.head_dim, self.head_dim, rot_half,
                HB=HEADS_PER_ITER, HALF=triton.next_power_of_2(rot_half),
                REST=triton.next_power_of_2(max(self.head_dim - self.rotary_dim, 1)), num_warps=NUM_WARPS,
            )
        return qo, ko
