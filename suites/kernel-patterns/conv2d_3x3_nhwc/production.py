"""Production baseline: cuDNN's convolution through F.conv2d with the activations and the weight
both in channels_last, the layout PyTorch recommends for running convolutional networks
(`model.to(memory_format=torch.channels_last)`).

The reference already hands cuDNN a channels_last view of its NHWC input, but keeps its weight in
NCHW, so PyTorch converts the weight to channels_last on every call; here the weight is stored in
channels_last once (the copy of the reference's weights keeps the layout), and the timed call is
the convolution alone. TF32 stays off, as for every float32 operator (docs/honesty.md).
"""

import torch
import torch.nn.functional as F


class Production(torch.nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        weight = torch.empty(c_out, c_in, 3, 3).to(memory_format=torch.channels_last)
        self.weight = torch.nn.Parameter(weight)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.conv2d(x.permute(0, 3, 1, 2), self.weight, padding=1)
        return y.permute(0, 2, 3, 1).contiguous()
