"""
---
op: rotary_embedding_neox
strategy: flat-token-head-rows
techniques: [gather, 2d-tile, single-launch-q-and-k, fp32-compute, masked-tail, partial-rotary, warps-from-tile]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [4, 8, 16, 32, 64], default: 16}
  ELEMS_PER_THREAD: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/pos_encoding_kernels.cu
  - https://github.com/linkedin/Liger-Kernel/blob/main/src/liger_kernel/ops/rope.py
---
Query and key are viewed as flat lists of (token, head) rows of head_dim elements; one launch covers
both (the first programs take query rows, the rest key rows), each program a [ROWS, rotary_dim/2]
tile of rows: it gathers each row's cos/sin from the cache by the row's token position (neighbouring
heads of a token hit the same cache line in L1/L2), rotates the two halves in fp32 and copies any
dims past rotary_dim through. Work per program is independent of the head counts, so shapes with
few heads per token (tensor-parallel slices, GQA keys) and small decode batches fill the GPU evenly.
Warps = ROWS*next_pow2(rotary_dim/2)*2/(32*ELEMS_PER_THREAD), clamped to 1..16.
"""

import torch
import triton
import triton.language as tl

ROWS = 16
ELEMS_PER_THREAD = 8


@triton.jit
def _rope_rows_tile(pos_ptr, x_ptr, o_ptr, cache_ptr, tile, n_rows, n_heads, head_dim, rot_half,
                    ROWS: tl.constexpr, HALF: tl.constexpr, REST: tl.constexpr):
    rows = tile.to(tl.int64) * ROWS + tl.arange(0, ROWS)
    rmask = rows < n_rows
    pos = tl.load(pos_ptr + rows // n_heads, mask=rmask, other=0).to(tl.int64)
    i = tl.arange(0, HALF)
    m = rmask[:, None] & (i < rot_half)[None, :]
    cptr = cache_ptr + pos[:, None] * (2 * rot_half) + i[None, :]
    cos = tl.load(cptr, mask=m, other=0.0).to(tl.float32)
    sin = tl.load(cptr + rot_half, mask=m, other=0.0).to(tl.float32)
    base = rows[:, None] * head_dim + i[None, :]
    x1 = tl.load(x_ptr + base, mask=m, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + rot_half, mask=m, other=0.0).to(tl.float32)
    tl.store(o_ptr + base, (x1 * cos - x2 * sin).to(o_ptr.dtype.element_ty), mask=m)
    tl.store(o_ptr + base + rot_half, (x2 * cos + x1 * sin).to(o_ptr.dtype.element_ty), mask=m)
    if REST > 0:
        j = 2 * rot_half + tl.arange(0, REST)
        mr = rmask[:, None] & (j < head_dim)[None, :]
        rptr = rows[:, None] * head_dim + j[None, :]
        tl.store(o_ptr + rptr, tl.load(x_ptr + rptr, mask=mr, other=0.0), mask=mr)


@triton.jit
def _rope_neox_rows(pos_ptr, q_ptr, k_ptr, qo_ptr, ko_ptr, cache_ptr, n_q_rows, n_k_rows, n_q_tiles,
                    n_heads, n_kv_heads, head_dim, rot_half,
                    ROWS: tl.constexpr, HALF: tl.constexpr, REST: tl.constexpr):
    pid = tl.program_id(0)
    if pid < n_q_tiles:
        _rope_rows_tile(pos_ptr, q_ptr, qo_ptr, cache_ptr, pid, n_q_rows, n_heads, head_dim, rot_half,
                        ROWS, HALF, REST)
    else:
        _rope_rows_tile(pos_ptr, k_ptr, ko_ptr, cache_ptr, pid - n_q_tiles, n_k_rows, n_kv_heads, head_dim,
                        rot_half, ROWS, HALF, REST)


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
            rot_half = self.rotary_dim // 2
            half = triton.next_power_of_2(rot_half)
            rest = self.head_dim - self.rotary_dim
            n_q_tiles = triton.cdiv(n_tokens * n_heads, ROWS)
            n_k_tiles = triton.cdiv(n_tokens * n_kv_heads, ROWS)
            warps = max(1, min(16, triton.next_power_of_2(max(1, ROWS * half * 2 // (32 * ELEMS_PER_THREAD)))))
            _rope_neox_rows[(n_q_tiles + n_k_tiles,)](
                pos, q, k, qo, ko, self.cos_sin_cache, n_tokens * n_heads, n_tokens * n_kv_heads, n_q_tiles,
                n_heads, n_kv_heads, self.head_dim, rot_half,
                ROWS=ROWS, HALF=half, REST=(triton.next_power_of_2(rest) if rest > 0 else 0), num_warps=warps,
            )
        return qo, ko
