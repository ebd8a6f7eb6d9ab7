"""Zero padding of the last two dims (conv padding, patch-multiple padding, FFT-conv doubling)."""

import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def __init__(self, top: int, bottom: int, left: int, right: int):
        super().__init__()
        self.pads = (left, right, top, bottom)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pad(x, self.pads)


def init_kwargs(*, top: int, bottom: int, left: int, right: int, **_) -> dict:
    return {"top": top, "bottom": bottom, "left": left, "right": right}


def make_inputs(*, dtype, device, batch: int, h: int, w: int, top: int, bottom: int, left: int,
                right: int) -> list:
    return [torch.randn(batch, h, w, dtype=dtype, device=device)]
