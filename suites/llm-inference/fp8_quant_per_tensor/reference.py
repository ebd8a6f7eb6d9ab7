"""Dynamic per-tensor fp8 (e4m3fn) quantization of activations (vLLM scaled_fp8_quant, no scale given)."""

import torch

FP8_MAX = 448.0                    # largest finite float8_e4m3fn
MIN_SCALE = 1.0 / (FP8_MAX * 512)  # floor on the scale, so an all-zero tensor does not divide by zero


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        xf = x.float()
        amax = xf.abs().amax().reshape(1)
        scale = torch.clamp(amax / FP8_MAX, min=MIN_SCALE)
        q = (xf / scale).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
        return q, scale


def make_inputs(*, dtype, device, n_tokens: int, hidden: int) -> list:
    x = 2.0 * torch.randn(n_tokens, hidden, device=device)
    # a few outlier channels, as in real LLM activations; one token carries the tensor's maximum
    cols = torch.randint(0, hidden, (max(1, hidden // 1024),), device=device)
    x[:, cols] *= 20.0
    x[torch.randint(0, n_tokens, ()), torch.randint(0, hidden, ())] = 150.0
    return [x.to(dtype)]
