"""
---
op: linear_bf16
strategy: persistent-tma-flattened-tile-loop
techniques: [tma, tensor-descriptors, persistent-kernel, grouped-program-order, l2-reuse, wgmma, software-pipelining, fp32-accumulate, epilogue-subtiling, per-shape-tiles]
dsl: triton
vendors: [nvidia]
archs: [sm90]
params:
  GROUP_M: {values: [1, 4, 8, 16], default: 8}
  NUM_STAGES: {values: [2, 3, 4, 5], default: 4}
  NUM_WARPS: {values: [4, 8], default: 8}
  EPILOGUE_SUBTILE: {values: [false, true], default: true}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html
  - https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html#tensor-memory-accelerator
---
Persistent TMA GEMM for y = x @ W^T at prefill. The host builds TensorDescriptors for x [m, k], the
weight W [n, k] as stored (block [BLOCK_N, BLOCK_K]: a K-major tile that wgmma reads straight from
shared memory as the transposed operand, tl.dot(x, w.T)) and y [m, n]. One program per SM walks the
output tiles in GROUP_M-grouped order, so the programs running together share x row-tiles and W
column-tiles in L2; the tile loop is tl.range(..., flatten=True), so the compiler fuses it with the
k loop into one software pipeline NUM_STAGES deep and the next tile's first TMA copies are in flight
while this tile's epilogue converts and stores (its coordinates come from a counter of its own, so
the hoisted loads do not keep this tile's offsets alive). With EPILOGUE_SUBTILE the fp32 accumulator
is written as two [BLOCK_M, BLOCK_N/2] bf16 halves by two TMA stores, halving the shared-memory
staging buffer so a 128x256x64 tile keeps 4 stages (4 x 48 KB + 32 KB). Tiles per shape (forward):
of 128x256 (8 warps), 128x128 (NUM_WARPS), 64x128 and 64x64 (4 warps), the one with the fewest waves
times tile work over a guessed per-tile MMA efficiency: 128x256x64 at all four prefill shapes,
64x128 at the held-out 1000-cubed, 64x64 at qwen2.5 77x3584x18944; NUM_STAGES is clipped to what
fits in SMEM_BUDGET (232000 bytes, under sm_90's 227 KB per block; it was 220 KB, 3 stages, until
session 48, after matmul_bf16's copy of this kernel went from 0.941x to 0.990x cuBLAS at square-4096
on an H100 with the fourth stage). Why it should gain: Nsight Compute on the H200 (2026-12-04,
docs/results/h200-2026-12-04-losers) has tiled_grouped, one non-persistent program of 256 threads
per 128x128 tile with pointer loads (4096 programs, 109 registers, 25 % occupancy,
dispatch/wait/barrier stalls on top), keeping the SMs 63-66 % busy at the 70b prefill shapes (852
and 1912 us) against cuBLAS's 91-93 % (nvjet 320x128 cooperative tiles, 132 persistent programs of
384 threads, 621 and 1395 us); TMA removes the address arithmetic and masks from the issue slots,
the 128x256 tile reads a quarter fewer operand bytes per MMA than 128x128, and the flattened
persistent loop hides each tile's epilogue, which took the batched TMA GEMM of this session from
152-158 to 94 us at 32x2048x2048x128. Compiled ahead of time for sm_90 with Triton 3.7.1: at
128x256x64, 3 stages, subtiled, one fused pipelined loop, wgmma, 164 registers, no spills, 180 KB of
shared memory. TMA needs 16-byte aligned bases and row strides (k and n multiples of 8 in bf16);
other inputs take the pointer-load tiled kernel in this file, and so does m <= 64 on a GPU (decode,
e.g. the held-out 7x5000x3000: split_k and decode_split_k_stream are the kernels for it). In the
interpreter the tiny-m rule is off, so the float32 cpu_shapes exercise both paths (rows of 40, 48 or
64 floats are 16-byte aligned, 33 or 70 are not).
Measured by the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`, bf16, events
timing): at the four prefill shapes it is the fastest of the four kernels but at most level with
torch.compile: o_proj-prefill-4k 203 us (0.89x), gate_up-prefill-4k 1400 (0.93x),
70b-tp8-down-prefill-8k 666 (0.93x), 70b-o_proj-prefill-8k 1549 (1.00x; tiled_grouped 268, 1896, 930
and 2324 us). The m <= 64 decode shapes take the pointer-load kernel and lose: 34.7, 37.2 and 44.1
us (0.42-0.74x); down-decode-256 (m = 256, TMA path) took 73.3 us (0.66x).
Nsight Compute on the H200 (2026-12-04, `tools/loser_profile.py`,
docs/results/h200-2026-12-04-losers-2/llm-inference/linear_bf16/): on the device this kernel is
level with cuBLAS. At 70b-tp8-down-prefill-8k it ran 621 us against cuBLAS's 626 us (nvjet 320x128
cooperative), at o_proj-prefill-4k 182 us against 179 us (nvjet 256x128 cooperative); SM 88-90 %
busy (cuBLAS 90 %), 164 registers, occupancy 12.5 % (register-limited), top stalls barrier 26-27 %
and long_scoreboard 23-25 %. The summary calls both sides compute-bound. cuBLAS also runs 132
programs, of 384 threads with 168 registers (occupancy 14.6-14.8 %), and moves fewer DRAM bytes per
call (671 against our 756 MB at 70b-tp8-down, 178 against 213 MB at o_proj). torch.compile generates
no kernel of its own here: its inductor.log at o_proj-prefill-4k is one extern_kernels.mm call. The
harness's events times (666 and 203 us) are 45 and 21 us longer than the kernel: the loss is outside
the device time, not in the GEMM. The covering-flush probe (2026-12-04,
docs/results/h200-2026-12-04-timing/cover-rule/p1.json, one process) measured the host's enqueue of
one call at o_proj-prefill-4k at 207 us for this kernel against 103 us for torch.compile, longer
than the old rule's hold (a 64 us flush pass and a 100 us spin); with the enqueue covered it timed
192.2 us against torch.compile's 188.9 (events) and 186.5 against 194.5 (graph replay), medians of
three rounds over which the SM clock fell from 1980 MHz to 1650-1920. This kernel has not been
profiled with Nsight Compute at gate_up-prefill-4k (0.93x) yet.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

GROUP_M = 8
NUM_STAGES = 4
NUM_WARPS = 8
EPILOGUE_SUBTILE = True

SMALL_M = 64              # on a GPU, m up to this takes the pointer path (decode is not this kernel's job)
SMEM_BUDGET = 232000      # bytes the pipeline and the store staging may take (sm_90: 4 stages of 128x256x64)


@triton.jit
def _tile_coords(tile, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    return first_m + (tile % per_group) % group_rows, (tile % per_group) // group_rows


@triton.jit
def _linear_tma_flat(x_desc, w_desc, y_desc, M, N, K, n_programs, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                     NUM_STAGES: tl.constexpr, EPILOGUE_SUBTILE: tl.constexpr, PRECISION: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    start = tl.program_id(0)
    out_tile = start - n_programs  # the epilogue's own tile counter
    for tile in tl.range(start, tiles_m * tiles_n, n_programs, flatten=True):
        pid_m, pid_n = _tile_coords(tile, tiles_m, tiles_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for kt in tl.range(0, k_tiles, num_stages=NUM_STAGES):
            x = x_desc.load([off_m, kt * BLOCK_K])
            w = w_desc.load([off_n, kt * BLOCK_K])  # [BLOCK_N, BLOCK_K] tile of W, K-major
            acc = tl.dot(x, w.T, acc, input_precision=PRECISION)
        out_tile += n_programs
        out_m, out_n = _tile_coords(out_tile, tiles_m, tiles_n, GROUP_M)
        row = out_m * BLOCK_M
        col = out_n * BLOCK_N
        if EPILOGUE_SUBTILE:  # two half-width stores: half the shared-memory staging buffer
            left, right = tl.split(tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2)).permute(0, 2, 1))
            y_desc.store([row, col], left.to(y_desc.dtype))
            y_desc.store([row, col + BLOCK_N // 2], right.to(y_desc.dtype))
        else:
            y_desc.store([row, col], acc.to(y_desc.dtype))


@triton.jit
def _linear_pointer(x_ptr, w_ptr, y_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                    BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        x = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :].to(tl.int64) * K + ks[:, None],  # [BLOCK_K, BLOCK_N] view of W.T
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc, input_precision=PRECISION)
    y = y_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(y, acc.to(y_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


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


def _tma_config(m: int, n: int, k: int, sms: int):
    """(BLOCK_M, BLOCK_N, BLOCK_K, NUM_STAGES, NUM_WARPS, EPILOGUE_SUBTILE) for one shape."""
    block_k = _pow2_at_most(k, 16, 64)
    # waves of tiles x a tile's work over a rough guess of its MMA efficiency (not measured): big tiles
    # unless they leave SMs idle in the last wave
    bm, bn = min(((128, 256, 1.0), (128, 128, 0.9), (64, 128, 0.75), (64, 64, 0.55)),
                 key=lambda t: triton.cdiv(triton.cdiv(m, t[0]) * triton.cdiv(n, t[1]), sms) * t[0] * t[1] / t[2])[:2]
    warps = 8 if bn == 256 else (4 if bm == 64 else NUM_WARPS)
    subtile = bool(EPILOGUE_SUBTILE)
    stages = NUM_STAGES
    store = bm * (bn // 2 if subtile else bn) * 2
    while stages > 2 and stages * (bm + bn) * block_k * 2 + store > SMEM_BUDGET:
        stages -= 1
    return bm, bn, block_k, stages, warps, subtile


def _launch_tma(x, w, y, precision):
    m, k = x.shape
    n = w.shape[0]
    sms = _device_info(x.device)[1] if x.is_cuda else 2
    bm, bn, bk, stages, warps, subtile = _tma_config(m, n, k, sms)
    x_desc = TensorDescriptor.from_tensor(x, [bm, bk])
    w_desc = TensorDescriptor.from_tensor(w, [bn, bk])
    y_desc = TensorDescriptor.from_tensor(y, [bm, bn // 2 if subtile else bn])
    n_programs = min(triton.cdiv(m, bm) * triton.cdiv(n, bn), sms)
    _linear_tma_flat[(n_programs,)](
        x_desc, w_desc, y_desc, m, n, k, n_programs, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=GROUP_M,
        NUM_STAGES=stages, EPILOGUE_SUBTILE=subtile, PRECISION=precision, num_warps=warps,
        num_stages=stages)


def _launch_pointer(x, w, y, precision):
    m, k = x.shape
    n = w.shape[0]
    bm = _pow2_at_most(m, 16, 64)
    bn = _pow2_at_most(n, 16, 128 if m <= 64 else 64)
    bk = _pow2_at_most(k, 16, 64)
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn),)
    _linear_pointer[grid](x, w, y, m, n, k, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=GROUP_M,
                          PRECISION=precision, num_warps=4, num_stages=3)


class ModelNew(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = x.shape[-1]
        x2 = x.reshape(-1, k).contiguous()
        w = self.weight.contiguous()
        m, n = x2.shape[0], w.shape[0]
        y = torch.empty((m, n), dtype=x.dtype, device=x.device)
        if m > 0 and n > 0:
            precision = "ieee" if x.dtype == torch.float32 else "tf32"
            tiny_m = x.is_cuda and m <= SMALL_M  # a speed rule only: off the GPU both paths stay exercised
            if k > 0 and not tiny_m and _tma_ok(x2, w, y):
                _launch_tma(x2, w, y, precision)
            else:
                _launch_pointer(x2, w, y, precision)
        return y.view(*x.shape[:-1], n)
