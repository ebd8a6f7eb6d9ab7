"""Wrong from its second call on: it writes into one output buffer it keeps, and every call after
the first adds a drift. The second call's output is the same tensor as the first's, so only a copy
of the first output shows the difference."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rms_kernel(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, drift, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * stride + cols, (x * inv * w + drift).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.calls = 0
        self.out = None

    def forward(self, x):
        if self.out is None or self.out.shape != x.shape:
            self.out = torch.empty_like(x)
        n_rows, n_cols = x.shape
        drift = 0.0 if self.calls == 0 else 0.5
        self.calls += 1
        _rms_kernel[(n_rows,)](x, self.weight, self.out, n_cols, x.stride(0), self.eps, drift,
                               BLOCK=triton.next_power_of_2(n_cols))
        return self.out
