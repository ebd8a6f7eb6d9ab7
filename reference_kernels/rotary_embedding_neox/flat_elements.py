"""
---
op: rotary_embedding_neox
strategy: flat-contiguous-elements-partner-gather
techniques: [gather, flat-1d, contiguous-store, single-launch-q-and-k, fp32-compute, masked-tail, partial-rotary, constexpr-head-dim]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [512, 1024, 2048, 4096], default: 1024}
  ELEMS_PER_THREAD: {values: [2, 4, 8, 16], default: 4}
requires: []
sources:
  - https://arxiv.org/abs/2104.09864 (Su et al., RoFormer)
  - https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/rotary_embedding.py (NeoX halves)
---
Query and key as one flat range of elements each: a program takes BLOCK neighbouring elements of
query or key, so its load of x and its store of the output are one contiguous span whatever the head
size, with no padding of a row to a power of two. The layouts that tile rows ([rows, rotary_dim/2]
halves plus a [rows, next_pow2(head_dim - rotary_dim)] pass-through, flat_head_rows) split an
80-wide phi-2 head into a 16-, a 16- and a 48-wide piece, the last padded to 64 lanes and masked.
Here element e of a row (col = e mod head_dim, head_dim a compile-time constant so the division is a
multiply) is computed where it lies:
- col < rotary_dim / 2: x[e] * cos[col] - x[e + rotary_dim/2] * sin[col];
- rotary_dim / 2 <= col < rotary_dim: x[e] * cos[col'] + x[e - rotary_dim/2] * sin[col'], with
  col' = col - rotary_dim/2;
- past rotary_dim: x[e], copied.
The partner element and the cos/sin pair are gathered only where the element rotates (masked
loads), so a partial rotary reads the pass-through dims once. With full rotary every element makes
four loads where the half-tile kernels make two per pair; meant for partial rotary and small decode
batches, where the contiguous span and a grid that does not depend on the head count matter more.
Warps = BLOCK / (32 * ELEMS_PER_THREAD), clamped to 1..16.
Measured by the harness on an H100 SXM (2026-12-06, session 38, bf16, `tools/suite_bench.py --kernels`
joined to session 37's baselines from the same kind of card, docs/results/2026-12-06-s38/; GPU
correctness passed at every shape): phi2-partial-decode-64 3.15 us against torch.compile's 3.39
(graph, 1.08x; flat_head_rows had 0.93x), llama3-8b-decode-32 2.90 against 4.89 (1.69x),
llama3-70b-tp8-prefill-4k 9.40 against 11.14 (graph, 1.19x). With full rotary at the large prefill
shapes the four loads an element cost what the layout predicts: llama3-8b-prefill-16k 147.02 against
139.49 (0.95x) and qwen2.5-7b-prefill-8k 59.46 against 58.46 (0.98x), where flat_head_rows leads.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
ELEMS_PER_THREAD = 4


@triton.jit
def _rope_span(pos_ptr, x_ptr, o_ptr, cache_ptr, block, n_elems, n_heads, rot_half,
               HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    e = block.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = e < n_elems
    row = e // HEAD_DIM
    col = (e - row * HEAD_DIM).to(tl.int32)
    first = col < rot_half
    rotates = ok & (col < 2 * rot_half)
    x = tl.load(x_ptr + e, mask=ok, other=0.0)
    partner = tl.where(first, e + rot_half, e - rot_half)
    xp = tl.load(x_ptr + partner, mask=rotates, other=0.0).to(tl.float32)
    pos = tl.load(pos_ptr + row // n_heads, mask=rotates, other=0).to(tl.int64)
    j = tl.where(first, col, col - rot_half)
    cptr = cache_ptr + pos * (2 * rot_half) + j
    cos = tl.load(cptr, mask=rotates, other=0.0).to(tl.float32)
    sin = tl.load(cptr + rot_half, mask=rotates, other=0.0).to(tl.float32)
    xf = x.to(tl.float32)
    rotated = xf * cos + tl.where(first, -xp, xp) * sin
    out = tl.where(rotates, rotated.to(o_ptr.dtype.element_ty), x.to(o_ptr.dtype.element_ty))
    tl.store(o_ptr + e, out, mask=ok)


@triton.jit
def _rope_neox_flat(pos_ptr, q_ptr, k_ptr, qo_ptr, ko_ptr, cache_ptr, n_q, n_k, n_q_blocks, n_heads, n_kv_heads,
                    rot_half, HEAD_DIM: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid < n_q_blocks:
        _rope_span(pos_ptr, q_ptr, qo_ptr, cache_ptr, pid, n_q, n_heads, rot_half, HEAD_DIM, BLOCK)
    else:
        _rope_span(pos_ptr, k_ptr, ko_ptr, cache_ptr, pid - n_q_blocks, n_k, n_kv_heads, rot_half, HEAD_DIM, BLOCK)


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
            n_heads = q.shape[1] // self.head_dim
            n_kv_heads = k.shape[1] // self.head_dim
            n_q_blocks = triton.cdiv(q.numel(), BLOCK)
            n_k_blocks = triton.cdiv(k.numel(), BLOCK)
            warps = max(1, min(16, BLOCK // (32 * ELEMS_PER_THREAD)))
            _rope_neox_flat[(n_q_blocks + n_k_blocks,)](
                pos, q, k, qo, ko, self.cos_sin_cache, q.numel(), k.numel(), n_q_blocks, n_heads, n_kv_heads,
                self.rotary_dim // 2, HEAD_DIM=self.head_dim, BLOCK=BLOCK, num_warps=warps,
            )
        return qo, ko
