"""
---
op: layernorm
strategy: exact-fit-power-of-two-segments
techniques: [whole-row-in-registers, pow2-segments, multi-row-per-program, loads-hoisted, weight-loaded-once, fp32-accumulate, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  ROWS: {values: [1, 2, 4], default: 1}
  ELEMS_PER_THREAD: {values: [4, 8, 16, 32], default: 8}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
---
Triton tiles are powers of two, so a whole-row kernel pads hidden 4544 to 8192 and 6144 to 8192
(44% and 25% of the lanes, registers and threads idle). Here the row is held as up to three
power-of-two segments instead: A = the largest power of two <= hidden, B = the largest power of two
<= the rest, C = the next power of two >= what is left (the only masked one), e.g. 6144 = 4096+2048,
4544 = 4096+256+256 (192 used), 5120 = 4096+1024, 3584 = 2048+1024+512. Each program loads ROWS rows
(segments of x plus weight and bias, all issued before any arithmetic), sums the segments' partial
sums for the mean and the centered variance in fp32 and writes each segment. Warps =
ROWS*(A+B+C)/(32*ELEMS_PER_THREAD) rounded up to a power of two, clamped to 1..16. Wins where
hidden is far from a power of two; at a power-of-two hidden it is the plain whole-row kernel.
"""

import torch
import triton
import triton.language as tl

ROWS = 1
ELEMS_PER_THREAD = 8


@triton.jit
def _layernorm_segments(x_ptr, w_ptr, b_ptr, y_ptr, n_rows, n_cols, eps, inv_n,
                        ROWS: tl.constexpr, SA: tl.constexpr, SB: tl.constexpr, SC: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    rmask = rows[:, None] < n_rows
    base = x_ptr + rows[:, None] * n_cols
    obase = y_ptr + rows[:, None] * n_cols
    ca = tl.arange(0, SA)
    xa = tl.load(base + ca[None, :], mask=tl.broadcast_to(rmask, (ROWS, SA)), other=0.0)
    wa = tl.load(w_ptr + ca)
    ba = tl.load(b_ptr + ca)
    if SB > 0:
        cb = SA + tl.arange(0, SB)
        xb = tl.load(base + cb[None, :], mask=tl.broadcast_to(rmask, (ROWS, SB)), other=0.0)
        wb = tl.load(w_ptr + cb)
        bb = tl.load(b_ptr + cb)
    if SC > 0:
        cc = SA + SB + tl.arange(0, SC)
        ccm = cc < n_cols
        mc = rmask & ccm[None, :]
        xc = tl.load(base + cc[None, :], mask=mc, other=0.0)
        wc = tl.load(w_ptr + cc, mask=ccm, other=0.0)
        bc = tl.load(b_ptr + cc, mask=ccm, other=0.0)
    # mean
    xa = xa.to(tl.float32)
    s = tl.sum(xa, axis=1)
    if SB > 0:
        xb = xb.to(tl.float32)
        s += tl.sum(xb, axis=1)
    if SC > 0:
        xc = xc.to(tl.float32)
        s += tl.sum(xc, axis=1)
    mean = (s * inv_n)[:, None]
    # centered variance
    da = xa - mean
    v = tl.sum(da * da, axis=1)
    if SB > 0:
        db = xb - mean
        v += tl.sum(db * db, axis=1)
    if SC > 0:
        dc = tl.where(mc, xc - mean, 0.0)
        v += tl.sum(dc * dc, axis=1)
    rstd = tl.rsqrt(v * inv_n + eps)[:, None]
    ya = da * rstd * wa.to(tl.float32)[None, :] + ba.to(tl.float32)[None, :]
    tl.store(obase + ca[None, :], ya.to(y_ptr.dtype.element_ty), mask=tl.broadcast_to(rmask, (ROWS, SA)))
    if SB > 0:
        yb = db * rstd * wb.to(tl.float32)[None, :] + bb.to(tl.float32)[None, :]
        tl.store(obase + cb[None, :], yb.to(y_ptr.dtype.element_ty), mask=tl.broadcast_to(rmask, (ROWS, SB)))
    if SC > 0:
        yc = dc * rstd * wc.to(tl.float32)[None, :] + bc.to(tl.float32)[None, :]
        tl.store(obase + cc[None, :], yc.to(y_ptr.dtype.element_ty), mask=mc)


def _segments(n: int) -> tuple[int, int, int]:
    a = 1 << (n.bit_length() - 1)
    rest = n - a
    if rest == 0:
        return a, 0, 0
    b = 1 << (rest.bit_length() - 1)
    rest -= b
    return a, b, (triton.next_power_of_2(rest) if rest > 0 else 0)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.bias = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            sa, sb, sc = _segments(hidden)
            warps = max(1, min(16, triton.next_power_of_2(max(1, ROWS * (sa + sb + sc) // (32 * ELEMS_PER_THREAD)))))
            _layernorm_segments[(triton.cdiv(n_rows, ROWS),)](
                x2, self.weight, self.bias, y, n_rows, hidden, self.eps, 1.0 / hidden,
                ROWS=ROWS, SA=sa, SB=sb, SC=sc, num_warps=warps,
            )
        return y.view(x.shape)
