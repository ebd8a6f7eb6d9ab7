"""
---
op: matmul_bf16
strategy: persistent-tma-descriptors
techniques: [tma, tensor-descriptors, persistent-kernel, grouped-program-order, l2-reuse, wgmma, software-pipelining, fp32-accumulate]
dsl: triton
vendors: [nvidia]
archs: [sm90, sm100]
params:
  BLOCK_M: {values: [64, 128], default: 128}
  BLOCK_N: {values: [64, 128, 256], default: 128}
  BLOCK_K: {values: [32, 64, 128], default: 64}
  GROUP_M: {values: [1, 4, 8, 16], default: 8}
  NUM_WARPS: {values: [4, 8], default: 8}
  NUM_STAGES: {values: [2, 3, 4, 5], default: 4}
requires: [gpu]
requires_reason: >-
  TMA (the Tensor Memory Accelerator) is sm90+ hardware; the host-side TensorDescriptor and its
  16-byte stride alignment rule only mean something on such a GPU, so the kernel is checked on the
  H200. (Triton's interpreter emulates descriptor loads, so it runs there too, but that proves only
  the indexing.)
sources:
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html
  - https://docs.nvidia.com/cuda/hopper-tuning-guide/index.html#tensor-memory-accelerator
---
Hopper GEMM in the style of Triton's persistent-matmul tutorial. The host builds TensorDescriptors
for a, b and c (base, shape, strides, block shape); inside the kernel desc.load([row, col]) becomes
one TMA bulk copy of a whole tile into shared memory (out-of-bounds parts zero-filled, no masks, no
per-thread address math) and desc.store writes the epilogue tile back the same way. One program per
SM loops over output tiles in grouped order, and the k loop is software-pipelined NUM_STAGES deep so
TMA copies overlap the wgmma of earlier stages. Compared with pointer loads this frees registers
and issue slots for the MMAs, which is what lets Triton approach cuBLAS on large bf16 GEMMs. TMA
needs 16-byte aligned row strides (k and n multiples of 8 for bf16) and a 16-byte aligned base;
other inputs take the pointer-based fallback kernel in this file.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 64
GROUP_M = 8
NUM_WARPS = 8
NUM_STAGES = 4


@triton.jit
def _tile_coords(tile, tiles_m, tiles_n, GROUP_M: tl.constexpr):
    per_group = GROUP_M * tiles_n
    first_m = (tile // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    return first_m + (tile % per_group) % group_rows, (tile % per_group) // group_rows


@triton.jit
def _matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, n_programs, BLOCK_M: tl.constexpr,
                           BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                           NUM_STAGES: tl.constexpr, PRECISION: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    for tile in range(tl.program_id(0), tiles_m * tiles_n, n_programs):
        pid_m, pid_n = _tile_coords(tile, tiles_m, tiles_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for kt in tl.range(0, k_tiles, num_stages=NUM_STAGES):
            a = a_desc.load([off_m, kt * BLOCK_K])
            b = b_desc.load([kt * BLOCK_K, off_n])
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
        c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def _matmul_pointer_fallback(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), tl.cdiv(M, BLOCK_M), tl.cdiv(N, BLOCK_N), GROUP_M)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + rk
        a = tl.load(a_ptr + rm[:, None].to(tl.int64) * K + ks[None, :],
                    mask=(rm[:, None] < M) & (ks[None, :] < K), other=0.0)
        b = tl.load(b_ptr + ks[:, None].to(tl.int64) * N + rn[None, :],
                    mask=(ks[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    c = c_ptr + rm[:, None].to(tl.int64) * N + rn[None, :]
    tl.store(c, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def _tma_ok(*tensors) -> bool:
    return all(t.data_ptr() % 16 == 0 and (t.stride(0) * t.element_size()) % 16 == 0 for t in tensors)


class ModelNew(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        m, k = a.shape
        n = b.shape[1]
        c = torch.empty((m, n), dtype=a.dtype, device=a.device)
        if m == 0 or n == 0:
            return c
        precision = "ieee" if a.dtype == torch.float32 else "tf32"
        n_tiles = triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N)
        if k > 0 and _tma_ok(a, b, c):
            a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
            b_desc = TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N])
            c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
            sms = torch.cuda.get_device_properties(a.device).multi_processor_count if a.is_cuda else 2
            n_programs = min(n_tiles, sms)
            _matmul_tma_persistent[(n_programs,)](
                a_desc, b_desc, c_desc, m, n, k, n_programs, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                BLOCK_K=BLOCK_K, GROUP_M=GROUP_M, NUM_STAGES=NUM_STAGES, PRECISION=precision,
                num_warps=NUM_WARPS)
        else:
            _matmul_pointer_fallback[(n_tiles,)](
                a, b, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                PRECISION=precision, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        return c
