"""Weight-only int8 GEMM with per-output-channel scales: c = a @ (wq * scale[:, None]).T."""

import torch


class Model(torch.nn.Module):
    def forward(self, a: torch.Tensor, wq: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
        w = wq.to(a.dtype) * scale[:, None]
        return torch.matmul(a, w.t())


def make_inputs(*, dtype, device, m: int, n: int, k: int) -> list:
    a = torch.randn(m, k, dtype=dtype, device=device)
    wq = torch.randint(-127, 128, (n, k), device=device).to(torch.int8)
    # int8 values have std ~73; scales around 1/(73 sqrt(k)), varying per channel
    scale = ((0.5 + torch.rand(n, device=device)) / (73.0 * k ** 0.5)).to(dtype)
    return [a, wq, scale]
