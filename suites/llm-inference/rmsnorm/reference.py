"""RMSNorm as Llama and Qwen2 run it: fp32 statistics, cast to the input dtype, then the weight."""

import torch


class Model(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float()
        inv_rms = torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return self.weight * (xf * inv_rms).to(x.dtype)


def init_kwargs(*, hidden: int, **_) -> dict:
    return {"hidden": hidden}


def make_inputs(*, dtype, device, n_rows: int, hidden: int) -> list:
    return [torch.randn(n_rows, hidden, dtype=dtype, device=device)]
