"""
---
op: matmul_bf16
strategy: tma-warp-specialized-k-loop
techniques: [tma, tensor-descriptors, warp-specialization, grouped-program-order, software-pipelining, fp32-accumulate]
dsl: triton
vendors: [nvidia]
archs: [sm90, sm100]
params:
  BLOCK_M: {values: [64, 128], default: 128}
  BLOCK_N: {values: [64, 128, 256], default: 128}
  BLOCK_K: {values: [32, 64, 128], default: 64}
  GROUP_M: {values: [1, 4, 8, 16], default: 8}
  NUM_WARPS: {values: [4, 8], default: 4}
  NUM_STAGES: {values: [2, 3, 4, 5], default: 3}
requires: [gpu]
requires_reason: >-
  Needs TMA tensor descriptors (sm90+) and, for the warp-specialized path, a Blackwell GPU:
  Triton 3.7 documents tl.range(..., warp_specialize=True) as Blackwell-only, so the kernel turns it
  on only when the device reports compute capability 10.x and runs as a TMA-pipelined kernel on
  Hopper. The interpreter ignores both features, so it is checked on real hardware.
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.range.html
  - https://triton-lang.org/main/getting-started/tutorials/09-persistent-matmul.html
  - https://pytorch.org/blog/warp-specialization/
---
Warp specialization splits a kernel's warps into roles: producer warps only issue TMA copies into
a ring of shared-memory stages, consumer warps only run the MMAs, and they hand stages over through
barriers, so neither role stalls on the other's latency (the CUTLASS "ping-pong"/"cooperative"
Hopper and Blackwell GEMMs are built this way). Triton exposes it as an attribute of the k loop:
tl.range(..., warp_specialize=True) asks the compiler to partition the loop's loads and dots into
async partitions. The tile loads go through TensorDescriptors so the producer is a single TMA issue
per operand per stage. The flag is a compile-time switch here: enabled on capability 10.x, off
elsewhere, where the same code is an ordinary NUM_STAGES-deep TMA pipeline. Strides that TMA
cannot describe (not 16-byte aligned) take the pointer-based fallback kernel.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

BLOCK_M = 128
BLOCK_N = 128
BLOCK_K = 64
GROUP_M = 8
NUM_WARPS = 4
NUM_STAGES = 3


@triton.jit
def _tile_coords(pid, M, N, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, GROUP_M: tl.constexpr):
    tiles_m = tl.cdiv(M, BLOCK_M)
    per_group = GROUP_M * tl.cdiv(N, BLOCK_N)
    first_m = (pid // per_group) * GROUP_M
    group_rows = tl.minimum(tiles_m - first_m, GROUP_M)
    return first_m + (pid % per_group) % group_rows, (pid % per_group) // group_rows


@triton.jit
def _matmul_tma_ws(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                   BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, NUM_STAGES: tl.constexpr,
                   WARP_SPECIALIZE: tl.constexpr, PRECISION: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
    off_m = pid_m * BLOCK_M
    off_n = pid_n * BLOCK_N
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for kt in tl.range(0, tl.cdiv(K, BLOCK_K), num_stages=NUM_STAGES, warp_specialize=WARP_SPECIALIZE):
        a = a_desc.load([off_m, kt * BLOCK_K])
        b = b_desc.load([kt * BLOCK_K, off_n])
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    c_desc.store([off_m, off_n], acc.to(c_desc.dtype))


@triton.jit
def _matmul_pointer_fallback(a_ptr, b_ptr, c_ptr, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                             BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, PRECISION: tl.constexpr):
    pid_m, pid_n = _tile_coords(tl.program_id(0), M, N, BLOCK_M, BLOCK_N, GROUP_M)
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
        grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N),)
        if k > 0 and _tma_ok(a, b, c):
            blackwell = a.is_cuda and torch.cuda.get_device_capability(a.device)[0] == 10
            _matmul_tma_ws[grid](
                TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K]),
                TensorDescriptor.from_tensor(b, [BLOCK_K, BLOCK_N]),
                TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N]),
                m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                NUM_STAGES=NUM_STAGES, WARP_SPECIALIZE=blackwell, PRECISION=precision, num_warps=NUM_WARPS)
        else:
            _matmul_pointer_fallback[grid](
                a, b, c, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, GROUP_M=GROUP_M,
                PRECISION=precision, num_warps=NUM_WARPS, num_stages=NUM_STAGES)
        return c
