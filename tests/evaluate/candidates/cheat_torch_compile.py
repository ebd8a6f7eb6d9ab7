"""Cheat: hands the operator to torch.compile instead of writing a kernel."""
import torch
import torch.nn.functional as F


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.fn = torch.compile(F.rms_norm)

    def forward(self, x):
        return self.fn(x, (x.shape[-1],), self.weight, self.eps)
