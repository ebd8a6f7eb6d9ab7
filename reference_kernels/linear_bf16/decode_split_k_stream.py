"""
---
op: linear_bf16
strategy: shape-aware-split-k-weight-streaming
techniques: [split-k, tma, tensor-descriptors, wgmma, software-pipelining, fp32-accumulate, partial-results-workspace, shape-specialized-config, grouped-program-order, masked-tail]
dsl: triton
vendors: [nvidia]
archs: [sm90]
params:
  BLOCK_K: {values: [32, 64, 128, 256], default: 256}
  NUM_STAGES: {values: [2, 3, 4, 5, 6], default: 6}
  SMEM_KB: {values: [160, 200, 220], default: 220}
  MAX_SPLIT: {values: [1, 2, 4], default: 2}
requires: []
sources:
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/efficient_gemm.md (parallelized reductions / split-K)
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html (host TensorDescriptor loads)
  - https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html#tensor-memory-accelerator
---
One kernel for every m: each program computes a BLOCK_M x BLOCK_N tile of y = x @ W^T (fp32
wgmma accumulation) for one k slice, loading x and W tiles with host-built TMA TensorDescriptors
(one bulk copy per tile, out-of-bounds rows/columns zero-filled, no masks) in a NUM_STAGES-deep
software pipeline; unaligned rows (k not a multiple of 8) take a masked pointer-load path.
pick_config chooses per shape from m, n, k and the SM count (cached): decode (m <= 64) uses
BLOCK_M = next power of two >= m (16/32/64) and BLOCK_N 32 or 64 so there are about one or two
weight panels per SM; m up to 512 uses 64 x 128 tiles; prefill uses 128 x 128 x 64, 8 warps.
BLOCK_K (up to 256) and stages are the widest that keep >= 4 stages while every program of a
<= 2-per-SM grid stays resident in shared memory (no second wave). The grid is split along k only
when it would otherwise cover fewer than half the SMs (split partials summed by a second, tiny
kernel, deterministically): on the H200, split-K cost 4-10 µs at the decode shapes.
Motivation (Nsight Compute on the H200, 2026-12-04): at llama3-8b-down-decode-256 our
tiled_grouped ran 64 programs of 256 threads, 12 % occupancy, 21 % DRAM throughput, 126 µs, against
cuBLAS nvjet 128x128 split-K, 2 launches, 63 % DRAM, 49 µs; at qkv-decode-32 split_k ran a
(2, 96, 4) grid in 2 launches, 23.6 µs, against one nvjet launch of 64x32 tiles, 17.0 µs.
An earlier config sweep (events, L2 flushed, not the suite) reached only parity with cuBLAS at the
four decode shapes. Measured by the harness on one H200 (2026-12-04,
`tools/suite_bench.py --kernels`, bf16): the defaults are below torch.compile at all eight shapes.
Decode: o_proj-decode-1 13.5 µs (graph, 0.99x; split_k is faster, 12.7), qkv-decode-32 17.8 (graph,
0.90x), up-decode-32 34.0 (events, 0.96x), down-decode-256 50.1 (events, 0.97x), the last three the
fastest of the four kernels. Prefill: 0.82-0.90x (213, 1519, 754 and 1721 µs), behind
tma_persistent_flat at each.
Nsight Compute at qkv-decode-32 (2026-12-04, `tools/loser_profile.py`,
docs/results/h200-2026-12-04-losers-2/llm-inference/linear_bf16/llama3-8b-qkv-decode-32/): 18.8 us
on the device against cuBLAS's 17.6 us (nvjet 64x32, 96 programs of 384 threads, 168 registers);
both move 52.9 MB, ours at 58 % of DRAM bandwidth with 192 programs of 128 threads, 36 registers,
occupancy 9.4 % (limited by shared memory), stalls short_scoreboard 28 % and wait 28 %; cuBLAS
reaches 63 %. The summary reads ours as latency-bound (DRAM just under its 60 % mark, SM 15.7 %) and
cuBLAS as memory-bound (SM 10.0 %, 64 % of its stalls long_scoreboard). torch.compile generates no
kernel of its own here: its inductor.log is one extern_kernels.mm call. The remaining gap is a few
per cent of bandwidth. Not yet profiled with Nsight Compute at down-decode-256 (0.97x) or
up-decode-32 (0.96x), the other two shapes where it is the fastest kernel and still behind
torch.compile; the down-decode-256 profile in docs/results/h200-2026-12-04-losers is of
tiled_grouped.
"""

import functools

import torch
import triton
import triton.language as tl

try:  # host-side TMA descriptors (Triton >= 3.4); without them the pointer path runs
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # pragma: no cover
    TensorDescriptor = None

BLOCK_K = 256
NUM_STAGES = 6
SMEM_KB = 220
MAX_SPLIT = 2

DECODE_MAX_M = 64   # up to here BLOCK_M follows m (16/32/64) and each program streams a weight panel
MID_MAX_M = 512     # up to here 64 x 128 tiles (enough programs); above, 128 x 128 prefill tiles


@triton.jit
def _linear_stream(x_ptr, w_ptr, x_desc, w_desc, out_ptr, M, N, K, k_tiles_per_split,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr, USE_TMA: tl.constexpr,
                   PARTIAL: tl.constexpr, PRECISION: tl.constexpr):
    """One (output tile, k slice) per program: acc[BLOCK_M, BLOCK_N] = x[rows, ks] @ W[cols, ks]^T.

    PARTIAL: store the fp32 partial tile into out_ptr[split] (a [splits, M, N] workspace);
    otherwise cast and store the finished tile into y."""
    pid = tl.program_id(0)
    split = tl.program_id(1)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    pid_m = first_m + (pid % per_group) % group_rows
    pid_n = (pid % per_group) // group_rows
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    kt0 = split * k_tiles_per_split
    kt1 = tl.minimum(kt0 + k_tiles_per_split, tl.cdiv(K, BLOCK_K))
    rm = off_m + tl.arange(0, BLOCK_M)
    rn = off_n + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for kt in tl.range(kt0, kt1, num_stages=NUM_STAGES):
        if USE_TMA:
            a = x_desc.load([off_m, kt * BLOCK_K])            # [BLOCK_M, BLOCK_K], OOB zero-filled
            b = w_desc.load([off_n, kt * BLOCK_K])            # [BLOCK_N, BLOCK_K] rows of W
        else:
            ks = kt * BLOCK_K + rk
            a = tl.load(x_ptr + rm[:, None].to(tl.int64) * K + ks[None, :],
                        mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
            b = tl.load(w_ptr + rn[:, None].to(tl.int64) * K + ks[None, :],
                        mask=(rn[:, None] < N) & (ks[None, :] < K), other=0.0)
        acc = tl.dot(a, tl.trans(b), acc, input_precision=PRECISION)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    if PARTIAL:
        out = out_ptr + (split * M + rm[:, None]).to(tl.int64) * N + rn[None, :]
        tl.store(out, acc, mask=mask)
    else:
        out = out_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
        tl.store(out, acc.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _sum_splits(part_ptr, y_ptr, numel, SPLITS: tl.constexpr, BLOCK: tl.constexpr):
    """y = sum over the SPLITS fp32 partials, in split order (deterministic), cast to y's dtype."""
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = idx < numel
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLITS):
        acc += tl.load(part_ptr + s * numel + idx, mask=mask, other=0.0)
    tl.store(y_ptr + idx, acc.to(y_ptr.dtype.element_ty), mask=mask)


@functools.lru_cache(maxsize=None)
def _sm_count(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _pow2_at_least(v: int, lo: int) -> int:
    return max(lo, triton.next_power_of_2(v))


def pick_config(m: int, n: int, k: int, sms: int) -> dict:
    """Tile sizes, warps, stages and split count for one shape, from m, n, k and the SM count."""
    if m <= DECODE_MAX_M:
        # Weight-streaming regime: one m tile, n tiles narrow enough to give ~1+ program per SM.
        block_m = _pow2_at_least(m, 16)
        block_n = 64 if 10 * triton.cdiv(n, 64) >= 9 * sms else 32
        warps = 4
    elif m <= MID_MAX_M:
        block_m, block_n, warps = 64, 128, 4
    else:
        block_m, block_n, warps = 128, 128, 8
    tiles = triton.cdiv(m, block_m) * triton.cdiv(n, block_n)
    k_cap = _pow2_at_least(k, 16)
    splits = 1
    while splits * 2 <= MAX_SPLIT and tiles * splits * 2 <= sms and k >= splits * 2 * 1024:
        splits *= 2
    # Up to two programs per SM should all be resident at once (no second wave): shared memory per
    # program is the SMEM_KB budget divided by the programs each SM must hold (big prefill grids
    # run in many waves anyway: one program per SM's budget). Widest BLOCK_K that still leaves
    # >= 4 stages, then as many stages as fit, up to NUM_STAGES.
    per_sm = triton.cdiv(tiles * splits, sms)
    per_sm = per_sm if per_sm <= 2 else 1
    budget = SMEM_KB * 1024 // per_sm
    block_k = min(BLOCK_K, k_cap)
    if m > MID_MAX_M:
        block_k = min(block_k, 64)
    while block_k > 32 and 4 * (block_m + block_n) * block_k * 2 > budget:
        block_k //= 2
    stage_bytes = (block_m + block_n) * block_k * 2
    stages = max(2, min(NUM_STAGES, budget // stage_bytes, 4 if m > DECODE_MAX_M else NUM_STAGES))
    k_tiles = triton.cdiv(k, block_k)
    k_tiles_per_split = triton.cdiv(k_tiles, splits)
    splits = triton.cdiv(k_tiles, k_tiles_per_split)
    return dict(block_m=block_m, block_n=block_n, block_k=block_k, warps=warps, stages=stages,
                splits=splits, k_tiles_per_split=k_tiles_per_split)


def _tma_ok(*tensors) -> bool:
    return TensorDescriptor is not None and all(
        t.data_ptr() % 16 == 0 and (t.stride(0) * t.element_size()) % 16 == 0 for t in tensors)


def linear(x2: torch.Tensor, w: torch.Tensor, cfg: dict, use_tma: bool = None) -> torch.Tensor:
    """y = x2 @ w.T with the given config (x2 [m, k], w [n, k], both contiguous)."""
    m, k = x2.shape
    n = w.shape[0]
    y = torch.empty((m, n), dtype=x2.dtype, device=x2.device)
    if m == 0 or n == 0:
        return y
    bm, bn, bk = cfg["block_m"], cfg["block_n"], cfg["block_k"]
    splits = cfg["splits"]
    if use_tma is None:  # TMA on the GPU; the interpreter takes the pointer path unless told
        use_tma = x2.is_cuda
    use_tma = use_tma and k > 0 and _tma_ok(x2, w)
    if use_tma:
        x_desc = TensorDescriptor.from_tensor(x2, [bm, bk])
        w_desc = TensorDescriptor.from_tensor(w, [bn, bk])
    else:
        x_desc, w_desc = x2, w
    out = torch.empty((splits, m, n), dtype=torch.float32, device=x2.device) if splits > 1 else y
    grid = (triton.cdiv(m, bm) * triton.cdiv(n, bn), splits)
    _linear_stream[grid](
        x2, w, x_desc, w_desc, out, m, n, k, cfg["k_tiles_per_split"], BLOCK_M=bm, BLOCK_N=bn,
        BLOCK_K=bk, GROUP_M=8, NUM_STAGES=cfg["stages"], USE_TMA=use_tma, PARTIAL=splits > 1,
        PRECISION="ieee" if x2.dtype == torch.float32 else "tf32",
        num_warps=cfg["warps"], num_stages=cfg["stages"])
    if splits > 1:
        _sum_splits[(triton.cdiv(m * n, 1024),)](out, y, m * n, SPLITS=splits, BLOCK=1024, num_warps=4)
    return y


class ModelNew(torch.nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = x.shape[-1]
        x2 = x.reshape(-1, k).contiguous()
        w = self.weight.contiguous()
        m, n = x2.shape[0], w.shape[0]
        sms = _sm_count(x.device.index if x.device.index is not None else torch.cuda.current_device()) \
            if x.is_cuda else 132
        y = linear(x2, w, pick_config(m, n, k, sms))
        return y.view(*x.shape[:-1], n)
