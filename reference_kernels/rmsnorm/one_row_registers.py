"""
---
op: rmsnorm
strategy: one-row-per-program
techniques: [whole-row-in-registers, fp32-accumulate, masked-tail, single-pass, eviction-hints]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8, 16], default: 8}
  EVICT_HINTS: {values: [0, 1], default: 0}
  REREAD: {values: [0, 1], default: 0}
  STATIC_N: {values: [0, 1], default: 0}
  W_FIRST: {values: [0, 1], default: 0}
points:   # the best measured at each shape (H200, session 43; H100, session 44: the docstring's end)
  - {NUM_WARPS: 16, REREAD: 1, STATIC_N: 1, W_FIRST: 1, shapes: [llama3-70b-prefill-4k]}
  - {NUM_WARPS: 16, REREAD: 1, W_FIRST: 1, shapes: [llama3-70b-prefill-4k]}
  - {NUM_WARPS: 16, REREAD: 1, shapes: [llama3-70b-prefill-4k]}
  - {STATIC_N: 1, W_FIRST: 1, shapes: [llama3-8b-prefill-16k]}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
  - https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/modeling_llama.py (LlamaRMSNorm)
---
One program per row loads the whole row (padded to the next power of two, masked) into registers,
reduces the sum of squares in fp32, and writes the scaled row, so every byte is read and written
exactly once. It wins when the row fits comfortably in registers (hidden up to about 8-16K with
enough warps) and there are many rows to fill the GPU; for a handful of decode rows most SMs sit
idle and the launch dominates.
Two points for the one shape where it trails torch.compile (llama3-70b-prefill-4k, 4096 x 8192: 0.97x
on the H200 in sessions 37 and 40). Inductor's kernel there (its tuning record on an H100,
session 39) is one row a program, one 8192-wide step on 16 warps, that reads x twice: the sum of
squares with an evict_last load, then the scaled row from a second, evict_first load that L2
serves. EVICT_HINTS=1 loads x evict_first and w evict_last (x is read once; w by every row);
REREAD=1 is Inductor's order, the reduction's registers dead before the second read.
Timed on one H200 (session 43, tools/harness_probe.py, bf16, each point against torch.compile
interleaved with it; docs/results/2026-12-07-s43/call1-probes/rms.txt): defaults 34.85 us against
33.46 (0.960x); NUM_WARPS=16 34.39 (0.979x); REREAD=1 34.06 (0.986x) and with 16 warps 33.91
(0.986x); EVICT_HINTS=1 36.35 (0.924x), with 16 warps 36.00 (0.927x). The second read from L2
closes about two thirds of the gap and the eviction hints widen it; none reaches 1.0x. The
defaults stay (the other shapes were not timed with REREAD); the tuner's space has both.
Two more differences from Inductor's kernel, as points (session 44): its shapes are static, so the
hidden size and the row stride are compile-time constants and its offsets int32; STATIC_N=1 does
the same (one compiled kernel per hidden size; rows are contiguous here). W_FIRST=1 issues the
weight's read before the reduction instead of after it. Timed on one H100 SXM (session 44,
tools/harness_probe.py, bf16, each point against torch.compile interleaved with it; two runs,
docs/results/2026-12-07-s44/call3-h100-probe and call4-h100-probe), llama3-70b-prefill-4k: defaults
0.963x; NUM_WARPS=16 with REREAD=1 0.999x, adding STATIC_N=1 0.999x, STATIC_N=1 without REREAD
0.994x; with W_FIRST=1 as well 1.008x and 1.006x (the two runs), and 1.004x without STATIC_N;
W_FIRST=1 alone 1.002x and with STATIC_N=1 1.004x. llama3-8b-prefill-16k: W_FIRST=1 1.022x,
STATIC_N=1 with W_FIRST=1 1.032x, the 16-warp REREAD points 1.003-1.006x. So on the H100 the early
weight read is worth about 0.5-1 % and the compiled-in hidden size little; these gains are within
two runs' spread of each other and have not been timed on the H200. The defaults stay; the
front matter's `points` have the tuner try them first at those shapes.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 8
EVICT_HINTS = 0
REREAD = 0
STATIC_N = 0
W_FIRST = 0


@triton.jit
def _rmsnorm_row(x_ptr, w_ptr, y_ptr, n_cols, x_stride, y_stride, eps, BLOCK: tl.constexpr,
                 EVICT_HINTS: tl.constexpr = 0, REREAD: tl.constexpr = 0, STATIC_N: tl.constexpr = 0,
                 W_FIRST: tl.constexpr = 0, OFFSETS_32: tl.constexpr = 0):
    cols = tl.arange(0, BLOCK)
    if STATIC_N > 0:  # the hidden size compiled in (rows contiguous): constant offsets, int32 where they fit
        if OFFSETS_32:
            start = tl.program_id(0) * STATIC_N
        else:
            start = tl.program_id(0).to(tl.int64) * STATIC_N
        x_row = x_ptr + start + cols
        y_row = y_ptr + start + cols
        n = STATIC_N
    else:
        row = tl.program_id(0).to(tl.int64)
        x_row = x_ptr + row * x_stride + cols
        y_row = y_ptr + row * y_stride + cols
        n = n_cols
    mask = cols < n  # all true, and folded away, when the row fills the block and n is static
    if W_FIRST:  # the weight's L2 read issued beside the row's, before the reduction waits on both
        w = tl.load(w_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    if REREAD:
        x = tl.load(x_row, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
    elif EVICT_HINTS:
        x = tl.load(x_row, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    else:
        x = tl.load(x_row, mask=mask, other=0.0).to(tl.float32)
    inv_rms = tl.rsqrt(tl.sum(x * x, axis=0) / n + eps)
    if REREAD:  # the second read, from L2
        x = tl.load(x_row, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
    if not W_FIRST:
        if EVICT_HINTS or REREAD:
            w = tl.load(w_ptr + cols, mask=mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
        else:
            w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * inv_rms * w
    tl.store(y_row, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            _rmsnorm_row[(n_rows,)](
                x2, self.weight, y, hidden, x2.stride(0), y.stride(0), self.eps,
                BLOCK=triton.next_power_of_2(hidden), EVICT_HINTS=EVICT_HINTS, REREAD=REREAD,
                STATIC_N=hidden if STATIC_N else 0, W_FIRST=W_FIRST, OFFSETS_32=x2.numel() < 2**31,
                num_warps=NUM_WARPS,
            )
        return y.view(x.shape)
