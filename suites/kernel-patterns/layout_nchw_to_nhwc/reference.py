"""NCHW -> NHWC (channels-last) layout conversion as a materialized copy."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(0, 2, 3, 1).contiguous()


def make_inputs(*, dtype, device, n: int, c: int, h: int, w: int) -> list:
    return [torch.randn(n, c, h, w, dtype=dtype, device=device)]
