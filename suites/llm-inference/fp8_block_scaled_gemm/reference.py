"""Block-scaled fp8 GEMM (DeepSeek-V3 recipe): activations with one scale per 1 x 128 group,
weights with one scale per 128 x 128 block, fp32 accumulation, output in a 16-bit dtype."""

import torch

GROUP = 128  # quantization block edge along K (and along N for the weight)
FP8_MAX = 448.0


class Model(torch.nn.Module):
    def forward(self, a_fp8: torch.Tensor, a_scale: torch.Tensor, b_fp8: torch.Tensor,
                b_scale: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
        # a_fp8 uint8 [m, k] and b_fp8 uint8 [n, k] hold float8_e4m3fn bit patterns;
        # a_scale fp32 [m, cdiv(k, 128)]; b_scale fp32 [cdiv(n, 128), cdiv(k, 128)]
        m, k = a_fp8.shape
        n = b_fp8.shape[0]
        a = a_fp8.view(torch.float8_e4m3fn).float() * a_scale.repeat_interleave(GROUP, dim=1)[:, :k]
        sb = b_scale.repeat_interleave(GROUP, dim=0).repeat_interleave(GROUP, dim=1)[:n, :k]
        b = b_fp8.view(torch.float8_e4m3fn).float() * sb
        return (a @ b.T).to(out_dtype)


def _quantize(x: torch.Tensor, rows: int):
    """Blocks of rows x 128 (zero-padded at the edges): scale = amax / 448, q = x / scale in fp8."""
    r, c = x.shape
    pr, pc = -(-r // rows) * rows, -(-c // GROUP) * GROUP
    xp = torch.zeros(pr, pc, device=x.device)
    xp[:r, :c] = x
    blocks = xp.view(pr // rows, rows, pc // GROUP, GROUP)
    scale = (blocks.abs().amax(dim=(1, 3)) / FP8_MAX).clamp_min(1e-12)
    q = (blocks / scale[:, None, :, None]).clamp(-FP8_MAX, FP8_MAX).to(torch.float8_e4m3fn)
    return q.view(pr, pc)[:r, :c].contiguous(), scale


def make_inputs(*, dtype, device, m: int, n: int, k: int) -> list:
    x = torch.randn(m, k, device=device)
    x[:, torch.randint(0, k, (max(1, k // 512),), device=device)] *= 10.0  # outlier channels
    w = torch.randn(n, k, device=device) / k ** 0.5
    a_q, a_scale = _quantize(x, 1)
    b_q, b_scale = _quantize(w, GROUP)
    return [a_q.view(torch.uint8), a_scale.contiguous(), b_q.view(torch.uint8), b_scale.contiguous(), dtype]
