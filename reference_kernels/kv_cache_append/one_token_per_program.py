"""
---
op: kv_cache_append
strategy: one-token-per-program
techniques: [scatter, paged-kv-cache, masked-tail, slot-padding-skip]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/cache_kernels.cu (reshape_and_cache_flash semantics)
---
One program per token reads its slot, returns at once for a padding slot (-1), and otherwise copies
the token's whole [num_kv_heads, head_size] key and value rows (padded to a power of two, masked)
into the cache at (slot // block_size, slot % block_size). Each program moves two contiguous runs
of num_kv_heads * head_size elements, so with 8 KV heads of 128 it issues 2 KiB loads and stores
per tensor in bf16; with a single KV head (70B at TP 8) a program moves only 256 bytes per tensor
and the kernel is launch- and latency-bound, which a multi-token tile fixes.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 4


@triton.jit
def _append_token(k_ptr, v_ptr, kc_ptr, vc_ptr, slot_ptr, row_len, block_size,
                  k_stride, v_stride, kc_stride_b, kc_stride_s, vc_stride_b, vc_stride_s,
                  BLOCK: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + t)
    if slot >= 0:
        blk = slot // block_size
        off = slot % block_size
        cols = tl.arange(0, BLOCK)
        mask = cols < row_len
        k = tl.load(k_ptr + t * k_stride + cols, mask=mask)
        v = tl.load(v_ptr + t * v_stride + cols, mask=mask)
        tl.store(kc_ptr + blk * kc_stride_b + off * kc_stride_s + cols,
                 k.to(kc_ptr.dtype.element_ty), mask=mask)
        tl.store(vc_ptr + blk * vc_stride_b + off * vc_stride_s + cols,
                 v.to(vc_ptr.dtype.element_ty), mask=mask)


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
            _append_token[(num_tokens,)](
                k, v, key_cache, value_cache, slots, row_len, key_cache.shape[1],
                k.stride(0), v.stride(0), key_cache.stride(0), key_cache.stride(1),
                value_cache.stride(0), value_cache.stride(1),
                BLOCK=triton.next_power_of_2(row_len), num_warps=NUM_WARPS,
            )
        return key_cache, value_cache
