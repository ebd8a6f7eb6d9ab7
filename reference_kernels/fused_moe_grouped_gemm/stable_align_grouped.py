"""
---
op: fused_moe_grouped_gemm
strategy: per-expert-stable-compaction-then-grouped-gemm
techniques: [moe-align-block-size, stream-compaction, prefix-sum, deterministic, grouped-gemm, gather-rows, tensor-cores, fp32-accumulate, fused-epilogue-scale, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 16}
  BLOCK_N: {values: [32, 64, 128, 256], default: 64}
  BLOCK_K: {values: [32, 64, 128, 256], default: 128}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
  NUM_STAGES: {values: [2, 3, 4, 5], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/vllm/model_executor/layers/fused_moe/fused_moe.py (block-aligned expert segments, fused_moe_kernel)
  - https://developer.nvidia.com/gpugems/gpugems3/part-vi-gpu-computing/chapter-39-parallel-prefix-sum-scan-cuda (stream compaction with a prefix sum)
---
No atomics and no memset: one program per expert counts its slots by scanning the flattened
topk_ids; a second grid, again one program per expert, derives its segment offset from all
experts' counts (each padded to BLOCK_M), then scans the ids again and compacts its own slots in
token order with a block-wise prefix sum (tl.cumsum plus a carried offset), writes sentinels into
its padding and labels its row blocks. The grouped GEMM is then the same as vLLM's: per (row
block, column tile) one expert, gathered token rows, tensor-core K loop, routing weight applied
to the fp32 accumulator, rows scattered to (token, choice) outputs. Each expert re-reads all ids
(n_experts x n_slots int32 reads, from L2), cheap next to the weights; the layout is stable and
reproducible run to run. The defaults (16-row blocks, deep K tiles) suit decode, where each expert
sees a handful of tokens and the weights dominate the bytes.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_N = 64
BLOCK_K = 128
NUM_WARPS = 4
NUM_STAGES = 4
_SCAN_BLOCK = 1024  # slots per step of the per-expert scans (not tuned)


@triton.jit
def _count_expert(ids_ptr, cnt_ptr, n_slots, BLOCK_S: tl.constexpr):
    e = tl.program_id(0)
    offs = tl.arange(0, BLOCK_S)
    n = tl.full([], 0, tl.int32)
    for s0 in range(0, n_slots, BLOCK_S):
        m = s0 + offs < n_slots
        ids = tl.load(ids_ptr + s0 + offs, mask=m, other=-1)
        n += tl.sum((ids == e).to(tl.int32), axis=0)
    tl.store(cnt_ptr + e, n)


@triton.jit
def _compact_expert(ids_ptr, cnt_ptr, sorted_ptr, block_expert_ptr, nblocks_ptr, n_slots, n_experts,
                    BLOCK_M: tl.constexpr, BLOCK_S: tl.constexpr, E_PAD: tl.constexpr):
    e = tl.program_id(0)
    ex = tl.arange(0, E_PAD)
    cnt_all = tl.load(cnt_ptr + ex, mask=ex < n_experts, other=0)
    padded_all = tl.cdiv(cnt_all, BLOCK_M) * BLOCK_M
    start = tl.sum(tl.where(ex < e, padded_all, 0), axis=0)
    mine = tl.sum(tl.where(ex == e, cnt_all, 0), axis=0)
    mine_padded = tl.cdiv(mine, BLOCK_M) * BLOCK_M
    if e == 0:
        tl.store(nblocks_ptr, tl.sum(padded_all, axis=0) // BLOCK_M)
    offs = tl.arange(0, BLOCK_S)
    filled = tl.full([], 0, tl.int32)
    for s0 in range(0, n_slots, BLOCK_S):
        s = s0 + offs
        ids = tl.load(ids_ptr + s, mask=s < n_slots, other=-1)
        hit = (ids == e).to(tl.int32)
        pos = start + filled + tl.cumsum(hit, axis=0) - 1
        tl.store(sorted_ptr + pos, s, mask=hit > 0)
        filled += tl.sum(hit, axis=0)
    pad = tl.arange(0, BLOCK_M)
    tl.store(sorted_ptr + start + mine + pad, n_slots, mask=mine + pad < mine_padded)  # sentinels
    for b in range(start // BLOCK_M, (start + mine_padded) // BLOCK_M):
        tl.store(block_expert_ptr + b, e)


@triton.jit
def _moe_gemm(x_ptr, w_ptr, y_ptr, sorted_ptr, block_expert_ptr, nblocks_ptr, tw_ptr,
              n_slots, top_k, N, K, x_stride, w_se, w_sn, y_stride,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
              PRECISION: tl.constexpr):
    pid_n = tl.program_id(0)  # column tiles vary fastest: neighbours share the row block's gather
    pid_m = tl.program_id(1)
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
        counts = torch.empty((n_experts,), dtype=torch.int32, device=dev)
        sorted_slots = torch.empty((max_blocks * BLOCK_M,), dtype=torch.int32, device=dev)
        block_expert = torch.empty((max_blocks,), dtype=torch.int32, device=dev)
        n_blocks = torch.empty((1,), dtype=torch.int32, device=dev)
        _count_expert[(n_experts,)](ids, counts, n_slots, BLOCK_S=_SCAN_BLOCK)
        _compact_expert[(n_experts,)](ids, counts, sorted_slots, block_expert, n_blocks, n_slots, n_experts,
                                      BLOCK_M=BLOCK_M, BLOCK_S=_SCAN_BLOCK, E_PAD=triton.next_power_of_2(n_experts))
        _moe_gemm[(triton.cdiv(n_out, BLOCK_N), max_blocks)](
            x2, w, y, sorted_slots, block_expert, n_blocks, tw, n_slots, top_k, n_out, hidden,
            x2.stride(0), w.stride(0), w.stride(1), y.stride(0),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
            PRECISION="ieee" if x.dtype == torch.float32 else "tf32",
            num_warps=NUM_WARPS, num_stages=NUM_STAGES,
        )
        return y.view(n_tokens, top_k, n_out)
