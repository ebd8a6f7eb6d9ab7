"""Dynamic per-token fp8 (e4m3fn) quantization of activations, as vLLM's fp8 linear layers do it."""

import torch

FP8_MAX = 448.0                    # largest finite float8_e4m3fn
MIN_SCALE = 1.0 / (FP8_MAX * 512)  # floor on the scale, so an all-zero row does not divide by zero


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        xf = x.float()
        amax = xf.abs().amax(dim=-1, keepdim=True)
        scale = torch.clamp(amax / FP8_MAX, min=MIN_SCALE)
        q = (xf / scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
        return q, scale


def make_inputs(*, dtype, device, n_tokens: int, hidden: int) -> list:
    x = 2.0 * torch.randn(n_tokens, hidden, device=device)
    # a few outlier channels, as in real LLM activations, so the row maximum is a channel of its own
    cols = torch.randint(0, hidden, (max(1, hidden // 1024),), device=device)
    x[:, cols] *= 20.0
    if n_tokens >= 3:
        x[1] = 0.0  # an all-zero row: the scale floor applies
    return [x.to(dtype)]
