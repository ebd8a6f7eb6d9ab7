"""
---
op: rotary_embedding_neox
strategy: token-block-all-heads-3d-tile
techniques: [gather, cos-sin-reuse-across-heads, 3d-tile, multi-token-per-program, fp32-compute, masked-tail, partial-rotary, warps-from-tile]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  TOKENS: {values: [1, 2, 4, 8], default: 2}
  HEADS_PER_ITER: {values: [4, 8, 16, 32], default: 8}
  ELEMS_PER_THREAD: {values: [8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/pos_encoding_kernels.cu (one block per token, cos/sin reused over heads)
---
Each program takes TOKENS consecutive tokens and all their query and key heads. It gathers the
[TOKENS, rotary_dim/2] cos and sin rows once, then walks the heads HEADS_PER_ITER at a time as a
[TOKENS, HEADS_PER_ITER, rotary_dim/2] tile (both NeoX halves loaded, rotated in fp32, stored),
copying dims past rotary_dim through. More tokens per program amortize the position and cos/sin
gathers and give programs enough bytes when a token has few heads (tensor-parallel slices, 8+1
heads); one token per program keeps the grid wide at decode. Warps =
TOKENS*HEADS_PER_ITER*next_pow2(rotary_dim/2)*2/(32*ELEMS_PER_THREAD), clamped to 1..16.
"""

import torch
import triton
import triton.language as tl

TOKENS = 2
HEADS_PER_ITER = 8
ELEMS_PER_THREAD = 8


@triton.jit
def _rotate_block(x_ptr, o_ptr, toks, tmask, n_heads, cos, sin, head_dim, rot_half,
                  HB: tl.constexpr, HALF: tl.constexpr, REST: tl.constexpr):
    i = tl.arange(0, HALF)[None, None, :]
    imask = i < rot_half
    for h0 in range(0, n_heads, HB):
        heads = (h0 + tl.arange(0, HB))[None, :, None]
        hm = tmask & (heads < n_heads)
        base = (toks * n_heads + heads) * head_dim
        m = hm & imask
        x1 = tl.load(x_ptr + base + i, mask=m, other=0.0).to(tl.float32)
        x2 = tl.load(x_ptr + base + rot_half + i, mask=m, other=0.0).to(tl.float32)
        tl.store(o_ptr + base + i, (x1 * cos - x2 * sin).to(o_ptr.dtype.element_ty), mask=m)
        tl.store(o_ptr + base + rot_half + i, (x2 * cos + x1 * sin).to(o_ptr.dtype.element_ty), mask=m)
        if REST > 0:
            j = 2 * rot_half + tl.arange(0, REST)[None, None, :]
            mr = hm & (j < head_dim)
            tl.store(o_ptr + base + j, tl.load(x_ptr + base + j, mask=mr, other=0.0), mask=mr)


@triton.jit
def _rope_neox_token_block(pos_ptr, q_ptr, k_ptr, qo_ptr, ko_ptr, cache_ptr, n_tokens, n_heads, n_kv_heads,
                           head_dim, rot_half, TOKENS: tl.constexpr, HB: tl.constexpr, HALF: tl.constexpr,
                           REST: tl.constexpr):
    toks1 = tl.program_id(0).to(tl.int64) * TOKENS + tl.arange(0, TOKENS)
    tm1 = toks1 < n_tokens
    pos = tl.load(pos_ptr + toks1, mask=tm1, other=0).to(tl.int64)
    i = tl.arange(0, HALF)
    cm = tm1[:, None] & (i < rot_half)[None, :]
    cptr = cache_ptr + pos[:, None] * (2 * rot_half) + i[None, :]
    cos = tl.load(cptr, mask=cm, other=0.0).to(tl.float32)[:, None, :]
    sin = tl.load(cptr + rot_half, mask=cm, other=0.0).to(tl.float32)[:, None, :]
    toks = toks1[:, None, None]
    tmask = tm1[:, None, None]
    _rotate_block(q_ptr, qo_ptr, toks, tmask, n_heads, cos, sin, head_dim, rot_half, HB, HALF, REST)
    _rotate_block(k_ptr, ko_ptr, toks, tmask, n_kv_heads, cos, sin, head_dim, rot_half, HB, HALF, REST)


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
            half = triton.next_power_of_2(rot_half)
            rest = self.head_dim - self.rotary_dim
            tile = TOKENS * HEADS_PER_ITER * half * 2
            warps = max(1, min(16, triton.next_power_of_2(max(1, tile // (32 * ELEMS_PER_THREAD)))))
            _rope_neox_token_block[(triton.cdiv(n_tokens, TOKENS),)](
                pos, q, k, qo, ko, self.cos_sin_cache, n_tokens, q.shape[1] // self.head_dim,
                k.shape[1] // self.head_dim, self.head_dim, rot_half,
                TOKENS=TOKENS, HB=HEADS_PER_ITER, HALF=half,
                REST=(triton.next_power_of_2(rest) if rest > 0 else 0), num_warps=warps,
            )
        return qo, ko
