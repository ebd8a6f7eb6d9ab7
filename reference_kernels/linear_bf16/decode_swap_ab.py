"""
---
op: linear_bf16
strategy: swap-ab-weight-streaming-decode
techniques: [swap-ab, tma, tensor-descriptors, wgmma, split-k, software-pipelining, fp32-accumulate, partial-results-workspace, shape-specialized-config, grouped-program-order, masked-tail, transposed-store]
dsl: triton
vendors: [nvidia]
archs: [sm90]
params:
  BLOCK_W: {values: [64, 128], default: 64}
  BLOCK_K: {values: [64, 128, 256], default: 256}
  NUM_STAGES: {values: [3, 4, 5, 6], default: 6}
  MAX_SPLIT: {values: [1, 2, 4, 8], default: 2}
requires: []
sources:
  - https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#asynchronous-warpgroup-level-matrix-shape (wgmma is m64nNk16 per warpgroup, N a multiple of 8 up to 256)
  - https://github.com/triton-lang/triton/blob/main/lib/Analysis/Utility.cpp (supportMMA, version 3 needs num_warps % 4 == 0, tile M % 64 == 0 and N % 8 == 0)
  - https://github.com/NVIDIA/cutlass/blob/main/media/docs/cpp/efficient_gemm.md (parallelized reductions / split-K)
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html (host TensorDescriptor loads)
  - https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html#tensor-memory-accelerator (TMA; up to 227 KB of shared memory per block)
---
Swap-AB counterpart of decode_split_k_stream: at decode (m <= 64) each program computes the
transposed tile y^T[w rows, tokens] = W[w rows, ks] @ x[tokens, ks]^T, so the accumulator is
acc[BLOCK_W, BLOCK_T] with BLOCK_W = 64 or 128 weight rows on the dot's M side and BLOCK_T = next
power of two >= m (at least 16) tokens on its N side, and the epilogue stores acc transposed into
y[m, n] (y + t * n + w_row, masked on t < m and w_row < n). The weight is streamed once through a
NUM_STAGES-deep pipeline of host-built TMA TensorDescriptor loads (W tile [BLOCK_W, BLOCK_K], x tile
[BLOCK_T, BLOCK_K], out-of-bounds rows and columns zero-filled); the x tile is small, so nearly all
of the shared memory holds weight stages. Rows whose stride is not 16-byte aligned (k % 8 != 0) and
the Triton interpreter take a masked pointer-load path instead. Split-K only when the weight panels
alone cover fewer than ~90 % of the SMs (fp32 partials in a [splits, m, n] workspace, summed in split
order by a second tiny kernel: deterministic). pick_config sizes BLOCK_K and the stage count so that
every program of a <= 2-per-SM grid is resident at once (no second wave), leaving room for the
epilogue's layout-conversion scratch. For m > 64 the same kernel runs conventional tiles: 128 weight
rows x 64 tokens up to m = 512, 128 x 128 x 64 with 8 warps for prefill (speed there is secondary).
Why it should win at decode: Triton emits Hopper's wgmma only when the dot's M is a multiple of 64
per warpgroup (and N a multiple of 8). decode_split_k_stream puts the tokens on M (BLOCK_M 16/32),
so at qkv-decode-32 it compiles to mma.sync (an offline sm90 compile with Triton 3.7.1 shows
versionMajor 2 and no wgmma). Nsight Compute at llama3-8b-qkv-decode-32 (m 32, n 6144, k 4096)
showed it at 58 % of DRAM bandwidth (18.8 us) against cuBLAS's 63 % (17.6 us), and cuBLAS ran a
"64x32" tile: 64 weight rows by 32 tokens, i.e. swapped operands. Here the 64/128 weight rows fill
wgmma's M and the 16/32/64 tokens are a legal wgmma N, so the dot reads both operands straight from
the TMA-filled shared memory, asynchronously, and the loop is left with little but waiting on the
copy engine. At qkv-decode-32 the defaults give 96 weight panels x 2 k-splits = 192 programs
(BLOCK_K 128, 4 stages, 96 KB each, two per SM); with MAX_SPLIT 1 it would be cuBLAS's 96
one-per-SM programs (BLOCK_K 256, 4 stages, 192 KB) in one launch.
Checked in the Triton interpreter (float32, pointer path, every parameter combination at odd
shapes, forced split counts) and compiled offline for sm90 (Triton 3.7.1): the dot lowers to wgmma
with TMA loads at the decode shapes and prefill.
Measured by the harness on one H200 (2026-12-05, tools/suite_bench.py --kernels, defaults, bf16;
the GPU correctness test passed every shape and held-out shape; results in
docs/results/h200-2026-12-05-s28/suite-c): against eager (cuBLAS, the production call) and
torch.compile: o_proj-decode-1 13.14 us by graph replay, 1.02x / 1.04x, the fastest of the five
kernels; up-decode-32 32.40 us by events, 1.02x / 1.04x, the fastest; qkv-decode-32 20.58 us by
events, 0.92x / 0.89x, behind decode_split_k_stream's 18.55 us by graph (different methods: this
kernel's first probe ran over the 20 us graph threshold); down-decode-256 (m 256, conventional
tiles) 65.09 us, 0.86x, behind decode_split_k_stream's 49.15; prefill 0.85-0.92x, behind
tma_persistent_flat. The qkv-decode-32 gap is not yet profiled; MAX_SPLIT 1 (one wave of 96
programs, cuBLAS's grid) is the first point the tuner should try there.
"""

import functools

import torch
import triton
import triton.language as tl

try:  # host-side TMA descriptors (Triton >= 3.4); without them the pointer path runs
    from triton.tools.tensor_descriptor import TensorDescriptor
except ImportError:  # pragma: no cover
    TensorDescriptor = None

BLOCK_W = 64
BLOCK_K = 256
NUM_STAGES = 6
MAX_SPLIT = 2

SMEM_KB = 220         # shared memory one SM gives its resident programs (sm90: 228 KB, 227 per block)
DECODE_MAX_M = 64     # up to here the tokens are the dot's N side (BLOCK_T 16/32/64)
MID_MAX_M = 512       # up to here 128 weight rows x 64 tokens; above, 128 x 128 prefill tiles
MIN_SPLIT_K = 1024    # each k-split keeps at least this many columns of k
GROUP_W = 8           # weight panels per program group (L2 reuse when there are several token tiles)


@triton.jit
def _linear_swap_ab(x_ptr, w_ptr, x_desc, w_desc, out_ptr, M, N, K, k_tiles_per_split,
                    BLOCK_W: tl.constexpr, BLOCK_T: tl.constexpr, BLOCK_K: tl.constexpr,
                    GROUP_W: tl.constexpr, NUM_STAGES: tl.constexpr, USE_TMA: tl.constexpr,
                    PARTIAL: tl.constexpr, PRECISION: tl.constexpr):
    """One (weight panel, token tile, k slice) per program:
    acc[BLOCK_W, BLOCK_T] = W[w rows, ks] @ x[tokens, ks]^T, stored transposed into y[tokens, w rows].

    PARTIAL: store the fp32 partial into out_ptr[split] (a [splits, M, N] workspace); otherwise cast
    and store the finished tile into y."""
    pid = tl.program_id(0)
    split = tl.program_id(1)
    tiles_w = tl.cdiv(N, BLOCK_W)
    tiles_t = tl.cdiv(M, BLOCK_T)
    per_group = GROUP_W * tiles_t
    first_w = (pid // per_group) * GROUP_W
    group_panels = tl.minimum(tiles_w - first_w, GROUP_W)
    pid_w = first_w + (pid % per_group) % group_panels
    pid_t = (pid % per_group) // group_panels
    off_w = pid_w * BLOCK_W
    off_t = pid_t * BLOCK_T
    kt0 = split * k_tiles_per_split
    kt1 = tl.minimum(kt0 + k_tiles_per_split, tl.cdiv(K, BLOCK_K))
    rw = off_w + tl.arange(0, BLOCK_W)
    rt = off_t + tl.arange(0, BLOCK_T)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_W, BLOCK_T], dtype=tl.float32)
    for kt in tl.range(kt0, kt1, num_stages=NUM_STAGES):
        if USE_TMA:
            w = w_desc.load([off_w, kt * BLOCK_K])            # [BLOCK_W, BLOCK_K], OOB zero-filled
            xt = x_desc.load([off_t, kt * BLOCK_K])           # [BLOCK_T, BLOCK_K] token rows
        else:
            ks = kt * BLOCK_K + rk
            w = tl.load(w_ptr + rw[:, None].to(tl.int64) * K + ks[None, :],
                        mask=(rw[:, None] < N) & (ks[None, :] < K), other=0.0)
            xt = tl.load(x_ptr + rt[:, None].to(tl.int64) * K + ks[None, :],
                         mask=(rt[:, None] < M) & (ks[None, :] < K), other=0.0)
        acc = tl.dot(w, tl.trans(xt), acc, input_precision=PRECISION)
    mask = (rw[:, None] < N) & (rt[None, :] < M)
    if PARTIAL:
        out = out_ptr + (split * M + rt[None, :]).to(tl.int64) * N + rw[:, None]
        tl.store(out, acc, mask=mask)
    else:
        out = out_ptr + rt[None, :].to(tl.int64) * N + rw[:, None]
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
    """Tiles, warps, stages and split count for one shape, from m, n, k and the SM count.

    smem_kb is the estimated shared memory per program (stages plus epilogue scratch), per_sm the
    programs each SM holds at once."""
    if m <= DECODE_MAX_M:
        # Weight streaming: one token tile on the dot's N side, BLOCK_W weight rows on its M side.
        block_w, block_t, warps = BLOCK_W, _pow2_at_least(m, 16), 4
    elif m <= MID_MAX_M:
        block_w, block_t, warps = 128, 64, 4
    else:
        block_w, block_t, warps = 128, 128, 8
    tiles = triton.cdiv(m, block_t) * triton.cdiv(n, block_w)
    splits = 1
    while (splits * 2 <= MAX_SPLIT and 10 * tiles * splits < 9 * sms
           and k >= splits * 2 * MIN_SPLIT_K):
        splits *= 2
    # Up to two programs per SM should all be resident at once (no second wave); a grid of more
    # runs in waves anyway, so each program then gets one SM's budget. The epilogue's layout change
    # (acc tile to the transposed store's layout) may need scratch of its own, counted here although
    # Triton can usually reuse the dead pipeline buffers: fp32 partials, or the bf16 output tile.
    per_sm = triton.cdiv(tiles * splits, sms)
    per_sm = per_sm if per_sm <= 2 else 1
    scratch = block_w * block_t * (4 if splits > 1 else 2)
    budget = SMEM_KB * 1024 // per_sm - scratch
    min_stages = min(4, NUM_STAGES)
    block_k = min(BLOCK_K, _pow2_at_least(k, 16))
    if m > MID_MAX_M:
        block_k = min(block_k, 64)
    while block_k > 32 and min_stages * (block_w + block_t) * block_k * 2 > budget:
        block_k //= 2
    stage_bytes = (block_w + block_t) * block_k * 2
    stages = max(2, min(NUM_STAGES, budget // stage_bytes, 4 if m > DECODE_MAX_M else NUM_STAGES))
    k_tiles = triton.cdiv(k, block_k)
    k_tiles_per_split = max(1, triton.cdiv(k_tiles, splits))
    splits = max(1, triton.cdiv(k_tiles, k_tiles_per_split))
    return dict(block_w=block_w, block_t=block_t, block_k=block_k, warps=warps, stages=stages,
                splits=splits, k_tiles_per_split=k_tiles_per_split,
                programs=tiles * splits, per_sm=per_sm,
                smem_kb=(stages * stage_bytes + scratch) / 1024)


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
    bw, bt, bk = cfg["block_w"], cfg["block_t"], cfg["block_k"]
    k_tiles = triton.cdiv(k, bk)
    per_split = max(1, cfg["k_tiles_per_split"])
    splits = max(1, triton.cdiv(k_tiles, per_split))
    if use_tma is None:  # TMA on the GPU; the interpreter takes the pointer path unless told
        use_tma = x2.is_cuda
    use_tma = use_tma and k > 0 and _tma_ok(x2, w)
    if use_tma:
        x_desc = TensorDescriptor.from_tensor(x2, [bt, bk])
        w_desc = TensorDescriptor.from_tensor(w, [bw, bk])
    else:
        x_desc, w_desc = x2, w
    out = torch.empty((splits, m, n), dtype=torch.float32, device=x2.device) if splits > 1 else y
    grid = (triton.cdiv(m, bt) * triton.cdiv(n, bw), splits)
    _linear_swap_ab[grid](
        x2, w, x_desc, w_desc, out, m, n, k, per_split, BLOCK_W=bw, BLOCK_T=bt, BLOCK_K=bk,
        GROUP_W=GROUP_W, NUM_STAGES=cfg["stages"], USE_TMA=use_tma, PARTIAL=splits > 1,
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
