"""SiLU-and-mul (SwiGLU), as vLLM's SiluAndMul.forward_native computes it."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        d = x.shape[-1] // 2
        return F.silu(x[..., :d]) * x[..., d:]


def make_inputs(*, dtype, device, n_tokens: int, d: int) -> list:
    return [torch.randn(n_tokens, 2 * d, dtype=dtype, device=device)]
