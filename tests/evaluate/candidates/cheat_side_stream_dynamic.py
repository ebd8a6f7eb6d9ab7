"""Cheat (GPU): a side stream reached through getattr, which the static review cannot resolve;
the profiler proof must catch it at run time."""
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
        self.side = None

    def forward(self, x):
        y = torch.empty_like(x)
        if self.side is None:
            self.side = getattr(torch.cuda, "Stream")()
        with getattr(torch.cuda, "stream")(self.side):
            _rms_kernel[(x.shape[0],)](x, self.weight, y, x.shape[1], x.stride(0), self.eps,
                                       BLOCK=triton.next_power_of_2(x.shape[1]))
        getattr(torch.cuda, "current_stream")().wait_stream(self.side)
        return y
