"""fp32 GEMM c = a @ b with row-major operands (no TF32)."""

import torch


class Model(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.matmul(a, b)


def make_inputs(*, dtype, device, m: int, n: int, k: int) -> list:
    a = torch.randn(m, k, dtype=dtype, device=device)
    b = (torch.randn(k, n, device=device) / k ** 0.5).to(dtype)
    return [a, b]
