"""GroupNorm (affine, eps 1e-5) on channels-last [batch, hw, c] activations: UNet / VAE blocks."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, c: int, groups: int):
        super().__init__()
        self.groups = groups
        self.weight = torch.nn.Parameter(1.0 + 0.1 * torch.randn(c))
        self.bias = torch.nn.Parameter(0.1 * torch.randn(c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.group_norm(x.permute(0, 2, 1), self.groups, self.weight, self.bias, eps=1e-5)
        return y.permute(0, 2, 1).contiguous()


def init_kwargs(*, c: int, groups: int, **_) -> dict:
    return {"c": c, "groups": groups}


def make_inputs(*, dtype, device, batch: int, hw: int, c: int, groups: int) -> list:
    return [(torch.randn(batch, hw, c, device=device) + 0.5).to(dtype)]
