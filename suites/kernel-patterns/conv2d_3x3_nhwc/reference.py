"""3x3 convolution (stride 1, pad 1, no bias) on NHWC activations: ResNet / UNet blocks."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(c_out, c_in, 3, 3) / (9 * c_in) ** 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.conv2d(x.permute(0, 3, 1, 2), self.weight, padding=1)
        return y.permute(0, 2, 3, 1).contiguous()


def init_kwargs(*, c_in: int, c_out: int, **_) -> dict:
    return {"c_in": c_in, "c_out": c_out}


def make_inputs(*, dtype, device, batch: int, h: int, w: int, c_in: int, c_out: int) -> list:
    return [torch.randn(batch, h, w, c_in, dtype=dtype, device=device)]
