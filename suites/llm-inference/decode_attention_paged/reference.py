"""Single-query decode attention over a paged KV cache with grouped-query attention (vLLM paged
attention semantics): fp32 scores and softmax, scale 1/sqrt(head_dim), output in the query dtype."""

import torch


class Model(torch.nn.Module):
    def forward(self, query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
                block_table: torch.Tensor, context_lens: torch.Tensor) -> torch.Tensor:
        # query [batch, num_q_heads, head_dim]; caches [num_blocks, block_size, num_kv_heads, head_dim]
        # block_table int32 [batch, max_blocks]; context_lens int32 [batch]
        batch, n_q, d = query.shape
        block_size, n_kv = key_cache.shape[1], key_cache.shape[2]
        group = n_q // n_kv  # q head i reads kv head i // group
        pages = block_table.long()
        t_max = pages.shape[1] * block_size
        k = key_cache[pages].reshape(batch, t_max, n_kv, d).float()
        v = value_cache[pages].reshape(batch, t_max, n_kv, d).float()
        q = query.float().view(batch, n_kv, group, d)
        scores = torch.einsum("bhgd,bthd->bhgt", q, k) * d ** -0.5
        past_end = torch.arange(t_max, device=query.device)[None, :] >= context_lens[:, None].long()
        scores = scores.masked_fill(past_end[:, None, None, :], float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        out = torch.einsum("bhgt,bthd->bhgd", probs, v)
        return out.reshape(batch, n_q, d).to(query.dtype)


def context_lengths(batch: int, context_len: int) -> list[int]:
    """Even-numbered sequences hold context_len tokens, odd ones context_len // 2 + 1 (a partly
    filled last page); which sequence gets which is shuffled by the caller."""
    return [context_len if b % 2 == 0 else context_len // 2 + 1 for b in range(batch)]


def make_inputs(*, dtype, device, batch: int, num_q_heads: int, num_kv_heads: int, head_dim: int,
                block_size: int, context_len: int) -> list:
    lens = torch.tensor(context_lengths(batch, context_len), dtype=torch.int32, device=device)
    lens = lens[torch.randperm(batch, device=device)]
    max_blocks = -(-context_len // block_size)
    need = [-(-int(n) // block_size) for n in lens.tolist()]
    num_blocks = sum(need) + max(4, sum(need) // 4)  # other sequences' pages live in the cache too
    perm = torch.randperm(num_blocks, device=device)
    # unused table entries point at random (valid) pages: reading them would change the result
    block_table = torch.randint(0, num_blocks, (batch, max_blocks), device=device)
    at = 0
    for b, n in enumerate(need):
        block_table[b, :n] = perm[at:at + n]
        at += n
    cache_shape = (num_blocks, block_size, num_kv_heads, head_dim)
    query = torch.randn(batch, num_q_heads, head_dim, dtype=dtype, device=device)
    key_cache = torch.randn(cache_shape, dtype=dtype, device=device)
    value_cache = torch.randn(cache_shape, dtype=dtype, device=device)
    return [query, key_cache, value_cache, block_table.to(torch.int32), lens]
