"""1D max pooling, no padding, dilation 1."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, kernel_size: int, stride: int):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.max_pool1d(x, self.kernel_size, self.stride)


def init_kwargs(*, kernel_size: int, stride: int, **_) -> dict:
    return {"kernel_size": kernel_size, "stride": stride}


def make_inputs(*, dtype, device, batch: int, channels: int, length: int, kernel_size: int,
                stride: int) -> list:
    return [torch.randn(batch, channels, length, dtype=dtype, device=device)]
