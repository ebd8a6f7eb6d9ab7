"""Residual add + RMSNorm (vLLM fused_add_rms_norm semantics, returned instead of in place)."""

import torch


class Model(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        residual_out = x + residual
        rf = residual_out.float()
        inv_rms = torch.rsqrt(rf.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return self.weight * (rf * inv_rms).to(x.dtype), residual_out


def init_kwargs(*, hidden: int, **_) -> dict:
    return {"hidden": hidden}


def make_inputs(*, dtype, device, n_rows: int, hidden: int) -> list:
    x = torch.randn(n_rows, hidden, dtype=dtype, device=device)
    residual = torch.randn(n_rows, hidden, dtype=dtype, device=device)
    return [x, residual]
