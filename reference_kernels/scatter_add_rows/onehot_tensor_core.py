"""
---
op: scatter_add_rows
strategy: few-targets-one-hot-product-on-tensor-cores
techniques: [one-hot-matmul, tensor-cores, tf32x2-split, owner-computes, column-block-ownership, split-reduction, software-pipelining, atomics, single-launch, deterministic, non-finite-flags, fp32-accumulate, masked-tail, int64-offsets]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_D: {values: [32, 64, 128], default: 32}
  BLOCK_R: {values: [32, 64, 128], default: 64}
  PROGRAMS_PER_SM: {values: [1, 2, 4], default: 1}
  MAX_TARGETS: {values: [0, 32, 64, 128], default: 64}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  NUM_STAGES: {values: [2, 3, 4], default: 3}
requires: []
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.dot.html
  - https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#warpgroup-level-matrix-instructions
  - https://pytorch.org/docs/stable/generated/torch.Tensor.index_add_.html
---
When the targets are few (MoE unpermute at decode: 512 source rows into 64 tokens; bucketed
reductions into 32 rows), the scatter is a product: out[:, cols] = H @ src[:, cols], where
H[j, r] = 1 if index[r] == j. A program owns a BLOCK_D column block of every target row and walks
its share of the source rows in BLOCK_R chunks: it builds the [targets, BLOCK_R] one-hot tile of
their indices with one compare per (target, row) and adds the chunk into a [targets, BLOCK_D] fp32
accumulator on the tensor cores. The one-hot entries are exact in TF32; the source is split into
hi (rounded to TF32) and lo (the exact remainder), two TF32 products whose sum is within about
2^-21 of the fp32 value (16-bit sources take one product, exact). Non-finite sources are taken out
of the products (0 * inf would spread a NaN over every target row) and counted by a third product,
only in a chunk that holds one; the output then carries NaN, +inf or -inf exactly where index_add_
puts them.

The grid is (column blocks, row splits), sized to PROGRAMS_PER_SM programs per SM. With one split
each program stores its tile (the rows nobody scatters to as zeros): one launch, no zero-fill and
no atomics, and the result is bitwise deterministic. With several splits the output is zeroed
first and each program adds its tile with relaxed atomics (one per target element per split, where
the row kernel makes one per source element). More than MAX_TARGETS targets (the prefill MoE
shapes, 16K tokens) would make the one-hot product cost more than the scatter: those take a row
scatter of relaxed atomics (a program per source row and ROW_BLOCK columns).

Why it was expected to win at moe-unpermute-decode-64-top8 (atomic_add 7.85 µs against
torch.compile's 7.60 on the H200, session 40): both of those are two launches, a zero-fill and
2.1M float atomics landing 8 to an output element; this is one launch that reads the 8 MB of
source once. At buckets-8192-to-32 (25.81 against 26.74 µs) 8.4M atomics land 256 to an element;
here 32 MB are read by about one program per SM and the atomics are 32 x 1024 per split.
The prediction failed. Measured by the harness on one H200 (session 43, 2026-12-07,
tools/harness_probe.py, fp32, each point against torch.compile timed interleaved with it;
docs/results/2026-12-07-s43/call1-probes/scatter.txt): at moe-unpermute-decode-64-top8 the
defaults took 14.03 µs by graph replay against torch.compile's 7.78 (0.56x); PROGRAMS_PER_SM=2
(split rows, atomics) 12.53 (0.62x), BLOCK_D=64 16.03, NUM_STAGES=4 14.03. At buckets-8192-to-32
the defaults took 66.26 µs (events) against 26.81 (0.40x); the best point, BLOCK_D=64 with
PROGRAMS_PER_SM=4, 27.84 (0.94x). So the atomics were not what bound atomic_add there: the one-hot
programs, 64 or 128 of them with one to two per SM, each walk their rows chunk by chunk through
compare, split and two products, and that serial walk costs more than the L2 atomics it saves. Not
profiled with Nsight Compute. The GPU correctness run passed every shape and held-out shape (and
this kernel's own tests: split rows, row scatter, 16-bit sources, inf/NaN placement).
"""

import torch
import triton
import triton.language as tl

BLOCK_D = 32
BLOCK_R = 64
PROGRAMS_PER_SM = 1
MAX_TARGETS = 64
NUM_WARPS = 4
NUM_STAGES = 3
ROW_BLOCK = 512  # the row scatter's columns per program (atomic_add's measured default, one row a program)
CPU_SMS = 4  # the interpreter has no SMs: a small grid that still splits the rows at the test shapes

POS_INF, NEG_INF, NAN = 1, 2, 4      # the flags a target element collects from its non-finite sources


@triton.jit
def _round_tf32(x):
    """x rounded to TF32 (10 mantissa bits), half away from zero: exact on the tensor cores."""
    return ((x.to(tl.uint32, bitcast=True) + 0x1000) & 0xFFFFE000).to(tl.float32, bitcast=True)


@triton.jit
def _onehot_scatter(src_ptr, idx_ptr, y_ptr, n_src, d, n_out, rows_per_split, TARGETS: tl.constexpr,
                    BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr, SPLIT_FP32: tl.constexpr, ATOMIC: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_D + tl.arange(0, BLOCK_D)
    col_ok = cols < d
    targets = tl.arange(0, TARGETS)
    first = tl.program_id(1) * rows_per_split
    last = tl.minimum(first + rows_per_split, n_src)
    acc = tl.zeros([TARGETS, BLOCK_D], dtype=tl.float32)
    flags = tl.zeros([TARGETS, BLOCK_D], dtype=tl.int32)
    for start in range(first, last, BLOCK_R):
        rows = start + tl.arange(0, BLOCK_R)
        live = rows < last
        dst = tl.load(idx_ptr + rows, mask=live, other=-1)
        hot = (targets[:, None] == dst[None, :]).to(tl.float32)             # [TARGETS, BLOCK_R]
        v = tl.load(src_ptr + rows[:, None].to(tl.int64) * d + cols[None, :],
                    mask=live[:, None] & col_ok[None, :], other=0.0).to(tl.float32)
        finite = tl.abs(v) < float("inf")
        fin = tl.where(finite, v, 0.0)
        if SPLIT_FP32:
            hi = _round_tf32(fin)
            acc = tl.dot(hot, hi, acc, input_precision="tf32")
            acc = tl.dot(hot, _round_tf32(fin - hi), acc, input_precision="tf32")
        else:                    # 16-bit sources are exact in one product
            acc = tl.dot(hot.to(src_ptr.dtype.element_ty), fin.to(src_ptr.dtype.element_ty), acc)
        if tl.min(finite.to(tl.int32)) == 0:       # a chunk with a non-finite source: count them by kind
            code = tl.where(v != v, 65536.0, tl.where(finite, 0.0, tl.where(v > 0, 1.0, 256.0)))
            seen = tl.dot(hot, code, input_precision="tf32").to(tl.int32)   # exact: under 256 of each per chunk
            flags |= tl.where((seen & 255) > 0, 1, 0) | tl.where(((seen >> 8) & 255) > 0, 2, 0) \
                | tl.where((seen >> 16) > 0, 4, 0)
    nan = ((flags & 4) != 0) | ((flags & 3) == 3)
    out = tl.where(nan, float("nan"), tl.where((flags & 1) != 0, float("inf"),
                                                tl.where((flags & 2) != 0, float("-inf"), acc)))
    ptrs = y_ptr + targets[:, None].to(tl.int64) * d + cols[None, :]
    mask = (targets < n_out)[:, None] & col_ok[None, :]
    if ATOMIC:
        tl.atomic_add(ptrs, out.to(y_ptr.dtype.element_ty), mask=mask, sem="relaxed")
    else:
        tl.store(ptrs, out.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _fill_zero(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros([BLOCK], dtype=y_ptr.dtype.element_ty), mask=offs < n)


@triton.jit
def _row_scatter(src_ptr, idx_ptr, y_ptr, d, BLOCK: tl.constexpr):
    """Many targets: program (r, c) adds BLOCK columns of source row r into its target row."""
    r = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    dst = tl.load(idx_ptr + r).to(tl.int64)
    x = tl.load(src_ptr + r * d + c, mask=c < d, other=0.0)
    tl.atomic_add(y_ptr + dst * d + c, x, mask=c < d, sem="relaxed")


def plan(n_src: int, n_out: int, d: int, sms: int) -> tuple[int, int, int]:
    """(targets tile, row splits, source rows per split) for the one-hot path; targets tile 0 means
    too many targets for it."""
    if n_out > MAX_TARGETS:
        return 0, 0, 0
    targets = max(16, triton.next_power_of_2(n_out))
    col_blocks = triton.cdiv(d, BLOCK_D)
    chunks = triton.cdiv(n_src, BLOCK_R)
    splits = max(1, min(chunks, (sms * PROGRAMS_PER_SM) // col_blocks))
    rows_per_split = triton.cdiv(chunks, splits) * BLOCK_R
    return targets, triton.cdiv(n_src, rows_per_split), rows_per_split


class ModelNew(torch.nn.Module):
    def __init__(self, n_out: int):
        super().__init__()
        self.n_out = n_out

    def forward(self, src: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
        src = src.contiguous()
        index = index.contiguous()
        n_src, d = src.shape
        n_out = self.n_out
        if n_out * d == 0:
            return torch.empty((n_out, d), dtype=src.dtype, device=src.device)
        sms = torch.cuda.get_device_properties(src.device).multi_processor_count if src.is_cuda else CPU_SMS
        targets, splits, rows_per_split = plan(max(n_src, 1), n_out, d, sms)
        if targets and splits <= 1:             # one program per column block: it stores, zeros included
            y = torch.empty((n_out, d), dtype=src.dtype, device=src.device)
            _onehot_scatter[(triton.cdiv(d, BLOCK_D), 1)](
                src, index, y, n_src, d, n_out, max(rows_per_split, 1), TARGETS=targets, BLOCK_R=BLOCK_R,
                BLOCK_D=BLOCK_D, SPLIT_FP32=src.dtype == torch.float32, ATOMIC=False, num_warps=NUM_WARPS,
                num_stages=NUM_STAGES)
            return y
        y = torch.empty((n_out, d), dtype=src.dtype, device=src.device)
        _fill_zero[(triton.cdiv(n_out * d, 2048),)](y, n_out * d, BLOCK=2048, num_warps=4)
        if targets and n_src:
            _onehot_scatter[(triton.cdiv(d, BLOCK_D), splits)](
                src, index, y, n_src, d, n_out, rows_per_split, TARGETS=targets, BLOCK_R=BLOCK_R,
                BLOCK_D=BLOCK_D, SPLIT_FP32=src.dtype == torch.float32, ATOMIC=True, num_warps=NUM_WARPS,
                num_stages=NUM_STAGES)
        elif n_src:
            block = min(ROW_BLOCK, triton.next_power_of_2(d))
            _row_scatter[(n_src, triton.cdiv(d, block))](src, index, y, d, BLOCK=block, num_warps=4)
        return y
