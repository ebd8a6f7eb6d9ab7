"""2D max pooling on NHWC activations (ResNet stem, YOLO SPPF, 2x2 downsampling)."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool2d(x.permute(0, 3, 1, 2), self.kernel_size, self.stride, self.padding)
        return y.permute(0, 2, 3, 1).contiguous()


def init_kwargs(*, kernel_size: int, stride: int, padding: int, **_) -> dict:
    return {"kernel_size": kernel_size, "stride": stride, "padding": padding}


def make_inputs(*, dtype, device, batch: int, h: int, w: int, c: int, kernel_size: int, stride: int,
                padding: int) -> list:
    return [torch.randn(batch, h, w, c, dtype=dtype, device=device)]
