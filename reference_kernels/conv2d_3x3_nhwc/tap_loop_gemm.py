"""
---
op: conv2d_3x3_nhwc
strategy: implicit-gemm-tap-loop
techniques: [implicit-gemm, tap-decomposition, shifted-tile-loads, coalesced-channels, tiling, zero-padding-by-mask, tf32x3-dot, ieee-fp32-dot, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_P: {values: [16, 32, 64, 128], default: 64}
  BLOCK_CO: {values: [16, 32, 64, 128], default: 64}
  BLOCK_CI: {values: [16, 32, 64], default: 32}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  PRECISION: {values: ["tf32x3", "ieee"], default: "tf32x3"}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/implicit_gemm_convolution.md
  - https://arxiv.org/abs/1410.0759
---
The same implicit GEMM with K split as 9 taps x c_in: the outer loop over the taps is unrolled at
compile time, and for each tap the program computes the shifted pixel coordinates and their
padding mask once, then runs an inner GEMM loop over c_in in BLOCK_CI steps. Each A tile is
BLOCK_P shifted pixels x BLOCK_CI consecutive channels, contiguous in NHWC memory (coalesced, one
base address per pixel), and each B tile is one tap's [c_in, c_out] slice of the weight. No
division in the inner loop and wide loads make it the faster form when c_in is a multiple of the
block (64, 256, 320); odd channel counts (3 or 33) pay a partly masked last step on every tap.
Every tap's dot runs at PRECISION: "tf32x3" (default) emulates the fp32 product on tensor cores
with three TF32 products of split operands, near fp32 accuracy; "ieee" stays in the space as the
exact CUDA-core path and is what non-fp32 inputs and ROCm (no tf32x3) get.
Nsight Compute at resnet50-stage3-32x14x14x256 (2026-12-04, `tools/loser_profile.py`,
docs/results/h200-2026-12-04-losers-2/kernel-patterns/conv2d_3x3_nhwc/resnet50-stage3-32x14x14x256/),
where this kernel is the fastest of the three and 0.40x torch.compile in the harness (676 us against
273 us, events): 677 us of device time in one launch of 98x4 programs of 128 threads, so the loss is
in the kernel itself. With 255 registers and 48 KB of shared memory a program, two programs fit on
an SM (occupancy 12.5 % possible, 10.4 % achieved; 1.48 waves). The summary calls it latency-bound:
SM 6.1 % and DRAM 0.3 % busy, memory 70.5 % (the L1/shared-memory unit 93 %), L2 hit rate 99.5 %.
The warps wait on shared-memory (MIO) operations (short_scoreboard, 36 % of the stalls) and on
global loads (long_scoreboard, 35 %); Nsight reports a 26.5-way bank conflict on the average shared
load and 78 % excess sectors from uncoalesced global accesses. torch.compile generates no
convolution kernel: its inductor.log has one Triton kernel that copies the weight into
[c_out, 3, 3, c_in] order (3.3 us), then calls cuDNN through extern_kernels.convolution on a
channels-last view of x. In that profile cuDNN ran its TF32 kernel (30.2 us, 98 programs of 384
threads, 168 registers) because the profile driver did not yet switch TF32 off, so it is not the
baseline the harness times (torch.compile with TF32 off, 273 us).
"""

import torch
import triton
import triton.language as tl

BLOCK_P = 64
BLOCK_CO = 64
BLOCK_CI = 32
NUM_WARPS = 4
PRECISION = 'tf32x3'


@triton.jit
def _conv3x3_taps(x_ptr, w_ptr, y_ptr, n_pix, H, W, C_IN, C_OUT, BLOCK_P: tl.constexpr, BLOCK_CO: tl.constexpr,
                  BLOCK_CI: tl.constexpr, PRECISION: tl.constexpr):
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    co = tl.program_id(1) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    p_mask = p < n_pix
    co_mask = co < C_OUT
    img = p // (H * W)
    oh = (p // W) % H
    ow = p % W
    rc = tl.arange(0, BLOCK_CI)
    acc = tl.zeros([BLOCK_P, BLOCK_CO], dtype=tl.float32)
    for tap in tl.static_range(9):
        ih = oh + (tap // 3 - 1)
        iw = ow + (tap % 3 - 1)
        pix_ok = p_mask & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        base = ((img.to(tl.int64) * H + ih) * W + iw) * C_IN
        for c0 in range(0, C_IN, BLOCK_CI):
            ci = c0 + rc
            ci_mask = ci < C_IN
            a = tl.load(x_ptr + base[:, None] + ci[None, :], mask=pix_ok[:, None] & ci_mask[None, :], other=0.0)
            b = tl.load(w_ptr + co[None, :] * (9 * C_IN) + ci[:, None] * 9 + tap,
                        mask=ci_mask[:, None] & co_mask[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
    y_off = p[:, None].to(tl.int64) * C_OUT + co[None, :]
    tl.store(y_ptr + y_off, acc.to(y_ptr.dtype.element_ty), mask=p_mask[:, None] & co_mask[None, :])


class ModelNew(torch.nn.Module):
    def __init__(self, c_in: int, c_out: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(c_out, c_in, 3, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        batch, h, w, c_in = x.shape
        c_out = self.weight.shape[0]
        y = torch.empty((batch, h, w, c_out), dtype=x.dtype, device=x.device)
        n_pix = batch * h * w
        if n_pix > 0 and c_out > 0:
            grid = (triton.cdiv(n_pix, BLOCK_P), triton.cdiv(c_out, BLOCK_CO))
            precision = PRECISION if x.dtype == torch.float32 and not torch.version.hip else "ieee"
            _conv3x3_taps[grid](x, self.weight.contiguous(), y, n_pix, h, w, c_in, c_out, BLOCK_P=BLOCK_P,
                                BLOCK_CO=BLOCK_CO, BLOCK_CI=BLOCK_CI, PRECISION=precision, num_warps=NUM_WARPS)
        return y
