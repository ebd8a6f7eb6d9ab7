"""KV-cache append (vLLM `reshape_and_cache_flash`): scatter new K/V rows into a paged cache."""

import torch


class Model(torch.nn.Module):
    def forward(self, key: torch.Tensor, value: torch.Tensor, key_cache: torch.Tensor,
                value_cache: torch.Tensor, slot_mapping: torch.Tensor):
        # key, value: [num_tokens, num_kv_heads, head_size]
        # key_cache, value_cache: [num_blocks, block_size, num_kv_heads, head_size] (updated in place)
        # slot_mapping: int64 [num_tokens], block * block_size + offset; -1 = padding, skipped
        n_heads, head_size = key.shape[1], key.shape[2]
        valid = slot_mapping >= 0
        slots = slot_mapping[valid]
        key_cache.view(-1, n_heads, head_size)[slots] = key[valid].to(key_cache.dtype)
        value_cache.view(-1, n_heads, head_size)[slots] = value[valid].to(value_cache.dtype)
        return key_cache, value_cache


def make_inputs(*, dtype, device, num_tokens: int, num_kv_heads: int, head_size: int,
                block_size: int, num_blocks: int) -> list:
    key = torch.randn(num_tokens, num_kv_heads, head_size, dtype=dtype, device=device)
    value = torch.randn(num_tokens, num_kv_heads, head_size, dtype=dtype, device=device)
    # the cache already holds other sequences' entries: slots not written must stay as they are
    cache_shape = (num_blocks, block_size, num_kv_heads, head_size)
    key_cache = torch.randn(cache_shape, dtype=dtype, device=device)
    value_cache = torch.randn(cache_shape, dtype=dtype, device=device)
    # distinct slots scattered over the whole cache; about 1 in 16 tokens (never the first) is
    # padding (-1), as in a CUDA-graph-padded batch
    slot_mapping = torch.randperm(num_blocks * block_size, device=device)[:num_tokens]
    pad = torch.rand(num_tokens, device=device) < 1.0 / 16
    pad[0] = False
    slot_mapping = torch.where(pad, torch.full_like(slot_mapping, -1), slot_mapping)
    return [key, value, key_cache, value_cache, slot_mapping]
