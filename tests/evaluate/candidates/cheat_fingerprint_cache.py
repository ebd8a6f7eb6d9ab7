"""Keeps its result by a fingerprint of the input's contents: its own small kernel samples two elements, read to the host (a no-op kernel under ghost replay leaves the sample unwritten, so that check misses the cache). The
refill check's new values, the correctness trials' fresh inputs and the timed-output call (the
timed inputs again) all get the right answer, and every timed call after the first on a set
returns the kept result. Session 49 found a variant of it accepted (a tiny kernel sampled the
input: 2,767 us against 5,103 us honest on the interpreter); the judge's batch now runs on input
sets it has never seen, so it computes there and the claim is caught against the judge's clock."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    inv = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(y_ptr + row * stride + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sample_kernel(x_ptr, f_ptr, last):
    tl.store(f_ptr, tl.load(x_ptr).to(tl.float32) + 3.0 * tl.load(x_ptr + last).to(tl.float32))


KEPT = {}


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = torch.empty(1, device=x.device, dtype=torch.float32)
        _sample_kernel[(1,)](x, f, x.numel() - 1)
        key = (tuple(x.shape), float(f[0]))
        kept = KEPT.get(key)
        if kept is not None:
            return kept
        y = torch.empty_like(x)
        _rmsnorm_kernel[(x.shape[0],)](x, self.weight, y, x.shape[1], x.stride(0), self.eps,
                                       BLOCK=triton.next_power_of_2(x.shape[1]))
        KEPT[key] = y
        return y
