"""Rotary position embedding, GPT-J style (rotate interleaved even/odd pairs of the rotary dims), as vLLM's
RotaryEmbedding(is_neox_style=False) applies it, returning new tensors instead of writing in place."""

import torch


class Model(torch.nn.Module):
    def __init__(self, head_dim: int, rotary_dim: int, max_position: int, base: float = 10000.0):
        super().__init__()
        self.head_dim, self.rotary_dim = head_dim, rotary_dim
        inv_freq = 1.0 / (base ** (torch.arange(0, rotary_dim, 2, dtype=torch.float32) / rotary_dim))
        freqs = torch.outer(torch.arange(max_position, dtype=torch.float32), inv_freq)
        self.register_buffer("cos_sin_cache", torch.cat([freqs.cos(), freqs.sin()], dim=-1))

    def forward(self, positions: torch.Tensor, query: torch.Tensor, key: torch.Tensor):
        cos, sin = self.cos_sin_cache[positions].float().chunk(2, dim=-1)  # [T, rotary_dim / 2]
        return self._rotate(query, cos, sin), self._rotate(key, cos, sin)

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        t = x.view(x.shape[0], -1, self.head_dim).float()
        rot, rest = t[..., : self.rotary_dim], t[..., self.rotary_dim:]
        x1, x2 = rot[..., 0::2], rot[..., 1::2]
        c, s = cos[:, None, :], sin[:, None, :]
        pairs = torch.stack([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1).flatten(-2)
        out = torch.cat([pairs, rest], dim=-1)
        return out.to(x.dtype).view(x.shape)


def init_kwargs(*, head_dim: int, rotary_dim: int, max_position: int, **_) -> dict:
    return {"head_dim": head_dim, "rotary_dim": rotary_dim, "max_position": max_position}


def make_inputs(*, dtype, device, n_tokens: int, n_heads: int, n_kv_heads: int, head_dim: int,
                max_position: int, **_) -> list:
    positions = torch.randint(0, max_position, (n_tokens,), device=device)
    query = torch.randn(n_tokens, n_heads * head_dim, dtype=dtype, device=device)
    key = torch.randn(n_tokens, n_kv_heads * head_dim, dtype=dtype, device=device)
    return [positions, query, key]
