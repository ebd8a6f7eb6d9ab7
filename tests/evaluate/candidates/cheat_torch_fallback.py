"""Cheat: calls torch's own rms_norm in forward (a launch of its kernel is only decoration)."""
import torch
import triton
import triton.language as tl
import torch.nn.functional as F


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x):
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)
