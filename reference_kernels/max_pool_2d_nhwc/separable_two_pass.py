"""
---
op: max_pool_2d_nhwc
strategy: separable-rows-then-columns
techniques: [separable-window, two-kernel, intermediate-buffer, window-reduction, tap-loop, coalesced-channels, neg-inf-padding-by-mask, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_P: {values: [4, 8, 16, 32, 64], default: 16}
  BLOCK_C: {values: [16, 32, 64, 128, 256], default: 64}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.MaxPool2d.html
  - https://en.wikipedia.org/wiki/Separable_filter
---
A max over a k x k window equals the max over k rows of each row's max over k columns, so the pool
runs as two 1D pools: kernel 1 reduces along w (stride and padding applied) into an intermediate
[batch, h, w_out, c] buffer, and kernel 2 reduces that along h into y. Each output costs 2k
taps instead of k^2 (10 instead of 25 for SPPF's 5x5, 6 instead of 9 for 3x3), at the price of
writing and re-reading the intermediate (h / h_out times the output size) and a second launch.
Since max is exact, the result is identical to the direct loop. Worth it for large windows at
stride 1; for 2x2 stride-2 downsampling the direct loop's 4 loads are cheaper than the round trip.
The same split applies to any separable filter (box blur, Gaussian) and to min and sum pools.
"""

import torch
import triton
import triton.language as tl

BLOCK_P = 16
BLOCK_C = 64
NUM_WARPS = 4


@triton.jit
def _pool_1d(x_ptr, y_ptr, n_out, LEN, C, OUT_LEN, INNER, stride, padding, KS: tl.constexpr, BLOCK_P: tl.constexpr,
             BLOCK_C: tl.constexpr):
    # x viewed as [outer, LEN, INNER, C], y as [outer, OUT_LEN, INNER, C]; pools along LEN
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    ch = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    p_mask = p < n_out
    ch_mask = ch < C
    inner = p % INNER
    o = (p // INNER) % OUT_LEN
    outer = p // (INNER * OUT_LEN)
    acc = tl.full([BLOCK_P, BLOCK_C], float("-inf"), dtype=tl.float32)
    for t in tl.static_range(KS):
        i = o * stride - padding + t
        ok = p_mask & (i >= 0) & (i < LEN)
        base = ((outer.to(tl.int64) * LEN + i) * INNER + inner) * C
        v = tl.load(x_ptr + base[:, None] + ch[None, :], mask=ok[:, None] & ch_mask[None, :], other=float("-inf"))
        acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(y_ptr + p[:, None].to(tl.int64) * C + ch[None, :], acc.to(y_ptr.dtype.element_ty),
             mask=p_mask[:, None] & ch_mask[None, :])


class ModelNew(torch.nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, h, w, c = x.shape
        ks, s, pad = self.kernel_size, self.stride, self.padding
        h_out = (h + 2 * pad - ks) // s + 1
        w_out = (w + 2 * pad - ks) // s + 1
        y = torch.empty((batch, h_out, w_out, c), dtype=x.dtype, device=x.device)
        if batch * h_out * w_out > 0 and c > 0:
            tmp = torch.empty((batch, h, w_out, c), dtype=x.dtype, device=x.device)
            n1 = batch * h * w_out  # along w: outer = batch * h, inner = 1
            _pool_1d[(triton.cdiv(n1, BLOCK_P), triton.cdiv(c, BLOCK_C))](
                x, tmp, n1, w, c, w_out, 1, s, pad, KS=ks, BLOCK_P=BLOCK_P, BLOCK_C=BLOCK_C, num_warps=NUM_WARPS)
            n2 = batch * h_out * w_out  # along h: outer = batch, inner = w_out
            _pool_1d[(triton.cdiv(n2, BLOCK_P), triton.cdiv(c, BLOCK_C))](
                tmp, y, n2, h, c, h_out, w_out, s, pad, KS=ks, BLOCK_P=BLOCK_P, BLOCK_C=BLOCK_C, num_warps=NUM_WARPS)
        return y
