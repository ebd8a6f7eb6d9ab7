"""
---
op: fused_moe_grouped_gemm
strategy: atomic-counting-sort-then-grouped-gemm
techniques: [moe-align-block-size, counting-sort, atomics, grouped-gemm, gather-rows, tensor-cores, fp32-accumulate, fused-epilogue-scale, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [32, 64, 128, 256], default: 128}
  BLOCK_K: {values: [16, 32, 64, 128], default: 64}
  NUM_WARPS: {values: [4, 8], default: 4}
  NUM_STAGES: {values: [2, 3, 4], default: 3}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/fused_moe/fused_moe.py (moe_align_block_size + fused_moe_kernel)
  - https://arxiv.org/abs/2401.04088 (Mixtral of Experts: 8 experts, top-2 routing)
---
vLLM's recipe in four launches. (1) Every (token, choice) slot adds one to its expert's counter
with an atomic, and the same grid pre-fills the sorted-slot buffer with a sentinel. (2) One
program pads each expert's count to a multiple of BLOCK_M, takes the exclusive prefix sum as the
experts' segment offsets, and labels every BLOCK_M-row block with its expert. (3) Each slot claims
a position in its expert's segment with an atomic fetch-and-add on a per-expert cursor. (4) The
grouped GEMM: one program per (row block, BLOCK_N column tile) looks up its expert, gathers the
block's token rows of x, runs the K loop on tensor cores against that expert's weight tile, scales
each row by its routing weight in fp32 and scatters the rows to their (token, choice) outputs;
sentinel rows are masked. Blocks hold one expert only, so each weight tile is read once per block
and an expert with few tokens costs one padded block; the order inside a segment depends on
atomic timing but every output row is computed independently, so the result is deterministic.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 128
BLOCK_K = 64
NUM_WARPS = 4
NUM_STAGES = 3
_SORT_BLOCK = 1024  # slots per program of the sort kernels (not tuned)


@triton.jit
def _count_and_fill(ids_ptr, cnt_ptr, sorted_ptr, n_slots, n_pos, BLOCK_S: tl.constexpr):
    p = tl.program_id(0) * BLOCK_S + tl.arange(0, BLOCK_S)
    tl.store(sorted_ptr + p, n_slots, mask=p < n_pos)  # sentinel: no slot
    m = p < n_slots
    e = tl.load(ids_ptr + p, mask=m, other=0)
    tl.atomic_add(cnt_ptr + e, 1, mask=m)


@triton.jit
def _align(cnt_ptr, cursor_ptr, block_expert_ptr, nblocks_ptr, n_experts, max_blocks,
           BLOCK_M: tl.constexpr, E_PAD: tl.constexpr, BLOCK_B: tl.constexpr):
    e = tl.arange(0, E_PAD)
    em = e < n_experts
    cnt = tl.load(cnt_ptr + e, mask=em, other=0)
    padded = tl.cdiv(cnt, BLOCK_M) * BLOCK_M
    start = tl.cumsum(padded, axis=0) - padded  # exclusive prefix: each expert's segment
    tl.store(cursor_ptr + e, start, mask=em)
    tl.store(nblocks_ptr, tl.sum(padded, axis=0) // BLOCK_M)
    first_block = start // BLOCK_M
    for b0 in range(0, max_blocks, BLOCK_B):
        b = b0 + tl.arange(0, BLOCK_B)
        owns = (first_block[None, :] <= b[:, None]) & (cnt[None, :] > 0) & em[None, :]
        tl.store(block_expert_ptr + b, tl.max(tl.where(owns, e[None, :], -1), axis=1), mask=b < max_blocks)


@triton.jit
def _scatter_slots(ids_ptr, cursor_ptr, sorted_ptr, n_slots, BLOCK_S: tl.constexpr):
    s = tl.program_id(0) * BLOCK_S + tl.arange(0, BLOCK_S)
    m = s < n_slots
    e = tl.load(ids_ptr + s, mask=m, other=0)
    pos = tl.atomic_add(cursor_ptr + e, 1, mask=m)
    tl.store(sorted_ptr + pos, s, mask=m)


@triton.jit
def _moe_gemm(x_ptr, w_ptr, y_ptr, sorted_ptr, block_expert_ptr, nblocks_ptr, tw_ptr,
              n_slots, top_k, N, K, x_stride, w_se, w_sn, y_stride,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              PRECISION: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    if pid_m < tl.load(nblocks_ptr):
        expert = tl.load(block_expert_ptr + pid_m).to(tl.int64)
        slots = tl.load(sorted_ptr + pid_m * BLOCK_M + tl.arange(0, BLOCK_M))
        live = slots < n_slots
        tok = tl.where(live, slots // top_k, 0).to(tl.int64)
        rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        nmask = rn < N
        rk = tl.arange(0, BLOCK_K)
        a_ptrs = x_ptr + tok[:, None] * x_stride + rk[None, :]
        b_ptrs = w_ptr + expert * w_se + rn[None, :].to(tl.int64) * w_sn + rk[:, None]
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kmask = k0 + rk < K
            a = tl.load(a_ptrs, mask=live[:, None] & kmask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=kmask[:, None] & nmask[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision=PRECISION)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K
        rw = tl.load(tw_ptr + slots, mask=live, other=0.0).to(tl.float32)
        acc = acc * rw[:, None]
        y = y_ptr + tl.where(live, slots, 0).to(tl.int64)[:, None] * y_stride + rn[None, :]
        tl.store(y, acc.to(y_ptr.dtype.element_ty), mask=live[:, None] & nmask[None, :])


class ModelNew(torch.nn.Module):
    def __init__(self, n_experts: int, hidden: int, n_out: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(n_experts, n_out, hidden))

    def forward(self, x: torch.Tensor, topk_ids: torch.Tensor, topk_weights: torch.Tensor) -> torch.Tensor:
        n_tokens, top_k = topk_ids.shape
        n_experts, n_out, hidden = self.weight.shape
        x2 = x.contiguous()
        w = self.weight.contiguous()
        ids = topk_ids.reshape(-1).contiguous()
        tw = topk_weights.reshape(-1).contiguous()
        n_slots = n_tokens * top_k
        y = torch.empty((n_slots, n_out), dtype=x.dtype, device=x.device)
        if n_slots == 0:
            return y.view(n_tokens, top_k, n_out)
        dev = x.device
        max_blocks = triton.cdiv(n_slots, BLOCK_M) + n_experts  # each expert pads at most one block
        n_pos = max_blocks * BLOCK_M
        counts = torch.zeros((n_experts,), dtype=torch.int32, device=dev)  # atomic counters
        cursor = torch.empty((n_experts,), dtype=torch.int32, device=dev)
        sorted_slots = torch.empty((n_pos,), dtype=torch.int32, device=dev)
        block_expert = torch.empty((max_blocks,), dtype=torch.int32, device=dev)
        n_blocks = torch.empty((1,), dtype=torch.int32, device=dev)
        _count_and_fill[(triton.cdiv(n_pos, _SORT_BLOCK),)](ids, counts, sorted_slots, n_slots, n_pos, BLOCK_S=_SORT_BLOCK)
        _align[(1,)](counts, cursor, block_expert, n_blocks, n_experts, max_blocks, BLOCK_M=BLOCK_M,
                     E_PAD=triton.next_power_of_2(n_experts), BLOCK_B=64)
        _scatter_slots[(triton.cdiv(n_slots, _SORT_BLOCK),)](ids, cursor, sorted_slots, n_slots, BLOCK_S=_SORT_BLOCK)
        _moe_gemm[(max_blocks, triton.cdiv(n_out, BLOCK_N))](
            x2, w, y, sorted_slots, block_expert, n_blocks, tw, n_slots, top_k, n_out, hidden,
            x2.stride(0), w.stride(0), w.stride(1), y.stride(0),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
            PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
            num_warps=NUM_WARPS, num_stages=NUM_STAGES,
        )
        return y.view(n_tokens, top_k, n_out)
