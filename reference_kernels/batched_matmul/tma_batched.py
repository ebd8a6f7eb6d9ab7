"""
---
op: batched_matmul
strategy: persistent-tma-3d-descriptors
techniques: [tma, tensor-descriptors, persistent-kernel, grouped-program-order, l2-reuse, wgmma, software-pipelining, fp32-accumulate, per-shape-tiles]
dsl: triton
vendors: [nvidia]
archs: [sm90]
params:
  BLOCK_K: {values: [32, 64, 128], default: 64}
  GROUP_M: {values: [1, 4, 8, 16], default: 8}
  NUM_STAGES: {values: [2, 3, 4, 5], default: 4}
  NUM_WARPS: {values: [4, 8], default: 8}
  STORE_TILE_N: {values: [128, 256], default: 256}
  STORE_PER_SM: {values: [1, 2], default: 1}
  STORE_STAGES: {values: [2, 3, 4], default: 2}
  STORE_WARPS: {values: [4, 8], default: 8}
  STORE_SPLIT: {values: [0, 1], default: 1}
  STORE_BLOCK_K: {values: [64, 128], default: 128}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html
  - https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html#tensor-memory-accelerator
---
TMA version of the batched GEMM. The host builds 3-D TensorDescriptors on a [batch, m, k],
b [batch, k, n] and c [batch, m, n] with block shapes [1, BLOCK_M, BLOCK_K], [1, BLOCK_K, BLOCK_N]
and [1, BLOCK_M, BLOCK_N]; the kernel loads a block at (i, row, col) and reshapes it to 2-D, so a
tile never crosses from one batch entry into the next, TMA zero-fills the parts past m, n or k and
clips the store, and there are no masks or per-thread address arithmetic. One program per SM walks
the flat (batch, tile_m, tile_n) space, grouped by GROUP_M within each batch entry for L2 reuse;
the tile loop is a flattened tl.range, so the k pipeline (NUM_STAGES deep) runs on across tile
boundaries and the next tile's bulk copies overlap this tile's epilogue. That overlap is what the
attention-score product needs: with k=128 each tile has only two k steps and the op is bound by its
268 MB of bf16 stores. Tiles per shape (forward): scores 128x256x64, 3 stages, one full-width
store; values (n=128) 128x128x128, 3 stages; experts 128x256xBLOCK_K, NUM_STAGES deep, stored in
two 128-wide halves to free shared memory for the pipeline; 512 tiny 64x64x64 matrices four
programs per SM. No Nsight Compute profile of this operator is in the losers folder; the H200
timing table motivated it: batch_grid_axis (pointer loads, 64x64x32 tiles) took 164/124/222 us
against torch.compile's one cuBLAS call at 90/78/96 us on the three prefill shapes. An earlier
helper sweep (triton.testing.do_bench, L2 flushed, not the harness) had the flattened loop take
scores from 152-158 us to 94 us, and the held-out 3x1000^3 at 20.0 us against torch.bmm's 15.8
(0.79x: only 96 tiles of 128x256 for 132 SMs). TMA needs 16-byte aligned bases and row strides (k
and n multiples of 8 in bf16), and the tile table is sized for 2-byte elements; other inputs (the
held-out 12x100x300x77: 7.1 us vs 9.7 in that sweep) take the pointer-based kernel in this file, one
program per (tile, batch entry). The interpreter emulates descriptor loads, so the cpu_shapes
exercise both paths (float32 rows of 20 or 32 elements are 16-byte aligned, 17 or 33 are not).
Measured by the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`, bf16, events
timing): scores 96.1 us (0.94x torch.compile), values 78.6 (0.99x), experts 97.0 (0.99x): the
fastest of the operator's three kernels at these shapes (the next best: 164, 124 and 220 us) but
still 1-6 % behind torch.compile's cuBLAS call. many-small-512x64 ran 8.54 us, also timed with
events (CV 1.6); the table's 7.91x there is against an events-timed torch.compile of 67.6 us that is
mostly host overhead (10.1 us by graph replay), and persistent_flat_tiles (5.98 us) and
batch_grid_axis (6.28 us, both graph replay) are faster.
It has not been profiled with Nsight Compute at the three shapes where it trails: call 10 of
docs/benchmarks.md listed batched_matmul, but its budget reached only conv2d_3x3_nhwc, sort_rows and
linear_bf16.
The store-bound path's STORE_* points (session 43, H200, tools/harness_probe.py at
attn-scores-32h-2048 against torch.compile timed interleaved; docs/results/2026-12-07-s43/
call1-probes/bmm.txt): the defaults 94.60 us (0.933x), 128-wide tiles two per SM with 2 stages
123.12 (0.72x; 4 warps the same), 128-wide with 2 stages one per SM 150.69 (0.58x), 2 stages alone
132.16 (0.67x). Fitting two programs per SM lost a quarter, so the 256-wide, one-per-SM store path
stays the default; what bounds it is still unprofiled.
Session 50 (H100 SXM, the same probe, docs/results/2026-12-07-s50/s50a/probe/bmm.txt): the defaults
then (STORE_SPLIT 0, 3 stages of 64-deep k) 119.42 us against torch.compile's 114.51 (0.959x); two
half-width stores with 2 stages of 128-deep k steps 112.90 against 114.44 (1.014x); with 4 stages of
64-deep k 121.52 (0.943x); GROUP_M 16 119.13 (0.960x). The 128-deep split-store point is the
default since: the only store-bound shape of the suite's, measured on an H100, not yet on an H200.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

BLOCK_K = 64
GROUP_M = 8
NUM_STAGES = 4
NUM_WARPS = 8
# the store-bound path (n >= 256, k <= 128: attention scores), at its measured defaults; the other
# points let a tuner try narrower tiles with two programs per SM, so one program's epilogue (its
# convert, its shared-memory staging and barriers) runs while the other's wgmma and loads do
STORE_TILE_N = 256
STORE_PER_SM = 1
STORE_STAGES = 2
STORE_WARPS = 8
# STORE_SPLIT 1 stores the tile as two half-width TMA stores, halving the staging buffer, so the
# pipeline can take a fourth stage (4 x 48 KB + 32 KB) or 128-deep k steps (2 x 96 KB + 32 KB)
STORE_SPLIT = 1
STORE_BLOCK_K = 128


@triton.jit
def _tile_coords(t, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_group = GROUP_M * tiles_n
    first_m = (t // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    return first_m + (t % per_group) % group_rows, (t % per_group) // group_rows


@triton.jit
def _bmm_tma_persistent(a_desc, b_desc, c_desc, batch, M, N, K, n_programs, BLOCK_M: tl.constexpr,
                        BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                        NUM_STAGES: tl.constexpr, FLATTEN: tl.constexpr, SPLIT_EPILOGUE: tl.constexpr,
                        PRECISION: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_mat = tiles_m * tiles_n
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in tl.range(tl.program_id(0), batch * per_mat, n_programs, flatten=FLATTEN):
        bid = tile // per_mat
        pid_m, pid_n = _tile_coords(tile % per_mat, tiles_m, tiles_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for kt in tl.range(0, k_tiles, num_stages=NUM_STAGES):
            a = a_desc.load([bid, off_m, kt * BLOCK_K]).reshape(BLOCK_M, BLOCK_K)
            b = b_desc.load([bid, kt * BLOCK_K, off_n]).reshape(BLOCK_K, BLOCK_N)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        if SPLIT_EPILOGUE:  # two half-width stores: half the shared-memory staging buffer
            halves = tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)).permute(0, 2, 1)
            left, right = tl.split(halves)
            c_desc.store([bid, off_m, off_n], left.to(c_desc.dtype).reshape(1, BLOCK_M, BLOCK_N // 2))
            c_desc.store([bid, off_m, off_n + BLOCK_N // 2],
                         right.to(c_desc.dtype).reshape(1, BLOCK_M, BLOCK_N // 2))
        else:
            c_desc.store([bid, off_m, off_n], acc.to(c_desc.dtype).reshape(1, BLOCK_M, BLOCK_N))


@triton.jit
def _bmm_pointer(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                 BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
    bid = tl.program_id(1).to(tl.int64)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    a_base = a_ptr + bid * M * K
    b_base = b_ptr + bid * K * N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_base + rm[:, None] * K + ks[None, :], mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_base + ks[:, None] * N + rn[None, :], mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    c = c_ptr + bid * M * N + rm[:, None] * N + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


_DEVICE_INFO = {}  # device -> (major compute capability, SM count): looked up once, not per call


def _device_info(device):
    if device not in _DEVICE_INFO:
        props = torch.cuda.get_device_properties(device)
        _DEVICE_INFO[device] = (props.major, props.multi_processor_count)
    return _DEVICE_INFO[device]


def _tma_ok(*tensors) -> bool:
    if tensors[0].is_cuda and (_device_info(tensors[0].device)[0] < 9 or tensors[0].element_size() != 2):
        return False  # TMA is sm90+; the tile table is sized for 2-byte elements' shared memory
    return all(t.data_ptr() % 16 == 0 and all((s * t.element_size()) % 16 == 0 for s in t.stride()[:-1])
               for t in tensors)


def _pow2_at_most(x: int, lo: int, hi: int) -> int:
    p = lo
    while p * 2 <= min(x, hi):
        p *= 2
    return p


def _tma_config(m: int, n: int, k: int):
    """(BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, NUM_WARPS, PROGRAMS_PER_SM, FLATTEN, SPLIT_EPILOGUE)."""
    if m <= 64 and n <= 64:   # many small matrices: several programs per SM hide each one's latency
        return 64, 64, _pow2_at_most(k, 16, 64), 2, 4, 4, True, False
    block_m = 128 if m > 64 else 64
    if n >= 256 and k <= 128:  # attention scores: store-bound, one full-width store per tile
        return (block_m, STORE_TILE_N, _pow2_at_most(k, 16, STORE_BLOCK_K), STORE_STAGES, STORE_WARPS, STORE_PER_SM,
                True, bool(STORE_SPLIT))
    if n >= 256:               # expert GEMMs: long k, deep pipeline, half-width stores free the smem
        return block_m, 256, BLOCK_K, NUM_STAGES, NUM_WARPS, 1, True, True
    # attention values (n = 128): the output is narrow, so take big k steps
    return block_m, _pow2_at_most(n, 16, 128), _pow2_at_most(k, 16, 128), 3, 8, 1, True, False


def _pointer_config(m: int, n: int, k: int):
    block_m = _pow2_at_most(m, 16, 64)
    block_n = _pow2_at_most(n, 16, 64)
    block_k = _pow2_at_most(k, 16, BLOCK_K)
    return block_m, block_n, block_k


def _launch_tma(a, b, c, cfg, precision):
    batch, m, k = a.shape
    n = b.shape[2]
    bm, bn, bk, stages, warps, per_sm, flatten, split = cfg
    a_desc = TensorDescriptor.from_tensor(a, [1, bm, bk])
    b_desc = TensorDescriptor.from_tensor(b, [1, bk, bn])
    c_desc = TensorDescriptor.from_tensor(c, [1, bm, bn // 2 if split else bn])
    sms = _device_info(a.device)[1] if a.is_cuda else 2
    n_programs = min(batch * triton.cdiv(m, bm) * triton.cdiv(n, bn), sms * per_sm)
    _bmm_tma_persistent[(n_programs,)](
        a_desc, b_desc, c_desc, batch, m, n, k, n_programs, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
        GROUP_M=GROUP_M, NUM_STAGES=stages, FLATTEN=flatten, SPLIT_EPILOGUE=split, PRECISION=precision,
        num_warps=warps)


def _launch_pointer(a, b, c, cfg, precision):
    batch, m, k = a.shape
    n = b.shape[2]
    bm, bn, bk = cfg
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), batch)
    _bmm_pointer[grid](a, b, c, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=GROUP_M,
                       PRECISION=precision, num_warps=4, num_stages=3)


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        batch, m, k = a.shape
        n = b.shape[2]
        c = torch.empty((batch, m, n), dtype=a.dtype, device=a.device)
        if batch == 0 or m == 0 or n == 0:
            return c
        precision = "ieee" if a.dtype == torch.float32 else "tf32"
        if k > 0 and _tma_ok(a, b, c):
            _launch_tma(a, b, c, _tma_config(m, n, k), precision)
        else:
            _launch_pointer(a, b, c, _pointer_config(m, n, k), precision)
        return c
