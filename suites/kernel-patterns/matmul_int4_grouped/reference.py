"""Weight-only int4 GEMM, two codes per byte, one fp32 scale per group_size weights along k."""

import torch


class Model(torch.nn.Module):
    def __init__(self, group_size: int):
        super().__init__()
        self.group_size = group_size

    def forward(self, a: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        n = wq.shape[0]
        codes = torch.stack((wq & 0xF, wq >> 4), dim=-1).reshape(n, -1)  # even column in the low nibble
        w = (codes.to(a.dtype) - 8) * scale.repeat_interleave(self.group_size, dim=1)
        return torch.matmul(a, w.t())


def init_kwargs(*, group_size: int, **_) -> dict:
    return {"group_size": group_size}


def make_inputs(*, dtype, device, m: int, n: int, k: int, group_size: int) -> list:
    a = torch.randn(m, k, dtype=dtype, device=device)
    wq = torch.randint(0, 256, (n, k // 2), device=device).to(torch.uint8)
    # codes - 8 have std ~4.6; per-group scales around 1/(4.6 sqrt(k))
    scale = ((0.5 + torch.rand(n, k // group_size, device=device)) / (4.6 * k ** 0.5)).to(dtype)
    return [a, wq, scale]
