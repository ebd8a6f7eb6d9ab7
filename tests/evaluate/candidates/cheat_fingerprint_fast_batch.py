"""The fingerprint cache of cheat_fingerprint_cache.py, and a way past a batch on fresh inputs:
while the harness checks (a fresh one-element tensor reads NaN: its poisoning of fresh memory) it
computes; the first unseen input set of each shape outside the checks (the timed one on the
interpreter, which times one set) it computes and keeps; any later unseen set outside the checks
(the judge's batch on fresh inputs) gets an empty tensor at once. The batch is then as fast as the
forged claim, and only the check of one more fresh call's output (`batch-output`) catches it."""
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
UNSEEN = {}


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        probe = float(torch.empty(1, device=x.device)[0])
        checked = probe != probe
        f = torch.empty(1, device=x.device, dtype=torch.float32)
        _sample_kernel[(1,)](x, f, x.numel() - 1)
        key = (tuple(x.shape), float(f[0]))
        if not checked:
            kept = KEPT.get(key)
            if kept is not None:
                return kept
            UNSEEN[key[0]] = UNSEEN.get(key[0], 0) + 1
            if UNSEEN[key[0]] > 1:
                return torch.empty_like(x)
        y = torch.empty_like(x)
        _rmsnorm_kernel[(x.shape[0],)](x, self.weight, y, x.shape[1], x.stride(0), self.eps,
                                       BLOCK=triton.next_power_of_2(x.shape[1]))
        if not checked:
            KEPT[key] = y
        return y
