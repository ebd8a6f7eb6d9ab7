"""
---
op: kv_cache_append
strategy: token-by-column-tile
techniques: [scatter, paged-kv-cache, 2d-tiling, masked-tail, slot-padding-skip]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_T: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_C: {values: [64, 128, 256, 512, 1024], default: 256}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/cache_kernels.cu (reshape_and_cache_flash semantics)
---
A 2D grid of (token tile, column tile): each program loads BLOCK_T slots, turns them into cache row
addresses, and copies a BLOCK_T x BLOCK_C tile of the flattened [num_kv_heads * head_size] rows of
both key and value, masking padding tokens (slot -1) and the column tail. Rows of one KV head
(70B at TP 8: 128 elements) are short, so packing several tokens per program gives each program
enough bytes in flight; wide rows (8 heads x 128) are split over column tiles so that decode
batches of 32 tokens still spread over many programs.
"""

import torch
import triton
import triton.language as tl

BLOCK_T = 4
BLOCK_C = 256
NUM_WARPS = 4


@triton.jit
def _append_tile(k_ptr, v_ptr, kc_ptr, vc_ptr, slot_ptr, num_tokens, row_len, block_size,
                 k_stride, v_stride, kc_stride_b, kc_stride_s, vc_stride_b, vc_stride_s,
                 BLOCK_T: tl.constexpr, BLOCK_C: tl.constexpr):
    toks = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    tmask = toks < num_tokens
    slot = tl.load(slot_ptr + toks, mask=tmask, other=-1)
    live = tmask & (slot >= 0)
    safe = tl.where(live, slot, 0)
    blk = safe // block_size
    off = safe % block_size
    mask = live[:, None] & (cols[None, :] < row_len)
    t64 = toks.to(tl.int64)[:, None]
    k = tl.load(k_ptr + t64 * k_stride + cols[None, :], mask=mask)
    v = tl.load(v_ptr + t64 * v_stride + cols[None, :], mask=mask)
    kc = kc_ptr + (blk * kc_stride_b + off * kc_stride_s)[:, None] + cols[None, :]
    vc = vc_ptr + (blk * vc_stride_b + off * vc_stride_s)[:, None] + cols[None, :]
    tl.store(kc, k.to(kc_ptr.dtype.element_ty), mask=mask)
    tl.store(vc, v.to(vc_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def forward(self, key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                value_cache: torch.Tensor, slot_mapping: torch.Tensor):
        num_tokens, n_heads, head_size = key.shape
        row_len = n_heads * head_size
        k = key.reshape(num_tokens, row_len).contiguous()
        v = value.reshape(num_tokens, row_len).contiguous()
        slots = slot_mapping.contiguous()
        # the caches are written in place: each (block, slot) row of heads x head_size must be dense
        assert key_cache.stride(2) == head_size and key_cache.stride(3) == 1
        assert value_cache.stride(2) == head_size and value_cache.stride(3) == 1
        if num_tokens > 0:
            grid = (triton.cdiv(num_tokens, BLOCK_T), triton.cdiv(row_len, BLOCK_C))
            _append_tile[grid](
                k, v, key_cache, value_cache, slots, num_tokens, row_len, key_cache.shape[1],
                k.stride(0), v.stride(0), key_cache.stride(0), key_cache.stride(1),
                value_cache.stride(0), value_cache.stride(1),
                BLOCK_T=BLOCK_T, BLOCK_C=BLOCK_C, num_warps=NUM_WARPS,
            )
        return key_cache, value_cache
