"""Causal self-attention over a packed batch of variable-length sequences (flash-attn varlen /
vLLM prefill semantics) with grouped-query attention; fp32 scores and softmax."""

import torch


class Model(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens: torch.Tensor,
                max_seqlen: int) -> torch.Tensor:
        # q [total_tokens, num_q_heads, head_dim]; k, v [total_tokens, num_kv_heads, head_dim]
        # cu_seqlens int32 [batch + 1]: sequence b is tokens cu_seqlens[b] .. cu_seqlens[b + 1] - 1
        n_q, d = q.shape[1], q.shape[2]
        group = n_q // k.shape[1]  # q head i reads kv head i // group
        out = torch.empty_like(q)
        bounds = cu_seqlens.tolist()
        for b in range(len(bounds) - 1):
            lo, hi = bounds[b], bounds[b + 1]
            n = hi - lo
            qs = q[lo:hi].float().transpose(0, 1)                                   # [n_q, n, d]
            ks = k[lo:hi].float().repeat_interleave(group, dim=1).transpose(0, 1)  # [n_q, n, d]
            vs = v[lo:hi].float().repeat_interleave(group, dim=1).transpose(0, 1)
            scores = (qs @ ks.transpose(1, 2)) * d ** -0.5
            future = torch.ones(n, n, dtype=torch.bool, device=q.device).triu(1)
            probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
            out[lo:hi] = (probs @ vs).transpose(0, 1).to(q.dtype)
        return out


def seq_lengths(batch: int, seq_len: int) -> list[int]:
    """Even-numbered sequences hold seq_len tokens, odd ones seq_len // 2 + 1."""
    return [seq_len if b % 2 == 0 else seq_len // 2 + 1 for b in range(batch)]


def make_inputs(*, dtype, device, batch: int, num_q_heads: int, num_kv_heads: int, head_dim: int,
                seq_len: int) -> list:
    lens = seq_lengths(batch, seq_len)
    lens = [lens[i] for i in torch.randperm(batch).tolist()]
    cu = [0]
    for n in lens:
        cu.append(cu[-1] + n)
    total = cu[-1]
    q = torch.randn(total, num_q_heads, head_dim, dtype=dtype, device=device)
    k = torch.randn(total, num_kv_heads, head_dim, dtype=dtype, device=device)
    v = torch.randn(total, num_kv_heads, head_dim, dtype=dtype, device=device)
    return [q, k, v, torch.tensor(cu, dtype=torch.int32, device=device), max(lens)]
