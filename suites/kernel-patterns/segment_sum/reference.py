"""Sum of ragged row segments given by offsets (varlen pooling, EmbeddingBag sum, CSR aggregation)."""

import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        n_seg = offsets.shape[0] - 1
        lengths = offsets[1:] - offsets[:-1]
        seg_of_row = torch.repeat_interleave(torch.arange(n_seg, device=x.device), lengths)
        out = torch.zeros(n_seg, x.shape[1], dtype=x.dtype, device=x.device)
        return out.index_add_(0, seg_of_row, x)


def make_inputs(*, dtype, device, n_rows: int, n_seg: int, d: int) -> list:
    x = torch.rand(n_rows, d, dtype=dtype, device=device)
    # random cut points: uneven lengths, some segments empty
    cuts = torch.sort(torch.randint(0, n_rows + 1, (n_seg - 1,), device=device)).values
    zero = torch.zeros(1, dtype=torch.int64, device=device)
    end = torch.full((1,), n_rows, dtype=torch.int64, device=device)
    return [x, torch.cat([zero, cuts, end])]
