"""L2 norm of each row in fp32."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.vector_norm(x, dim=-1)


def make_inputs(*, dtype, device, n_rows: int, n_cols: int) -> list:
    return [torch.randn(n_rows, n_cols, dtype=dtype, device=device)]
