"""
---
op: decode_attention_paged
strategy: one-program-per-seq-head-online-softmax
techniques: [paged-kv-gather, online-softmax, fp32-accumulate, exp2, masked-tail, gqa]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/attention/attention_kernels.cuh (paged attention v1 semantics)
  - https://arxiv.org/abs/2205.14135 (FlashAttention: online softmax)
---
One program per (sequence, query head) walks the sequence's context BLOCK_N tokens at a time: it
looks each token's page up in the block table, gathers the [BLOCK_N, head_dim] key tile, forms the
scores as a broadcast multiply and row sum against the one query vector (no tensor cores are
needed for a single query), and keeps a running maximum, denominator and fp32 output accumulator
(online softmax, exp2 with log2(e) folded into the scale), so K and V are read in one pass. It is
the vLLM v1 layout: simple and good with many sequences, but every query head of a GQA group
re-reads its KV head (hoping for L2 hits), and one long sequence at batch 1 gets only num_q_heads
programs, which leaves most SMs idle; split-K fixes that.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 64
NUM_WARPS = 4


@triton.jit
def _decode_head(q_ptr, kc_ptr, vc_ptr, bt_ptr, lens_ptr, o_ptr, qk_scale, group, block_size, head_dim,
                 q_sb, q_sh, k_sb, k_ss, k_sh, v_sb, v_ss, v_sh, bt_sb, o_sb, o_sh,
                 BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // group
    ctx = tl.load(lens_ptr + b)
    d = tl.arange(0, BLOCK_D)
    dmask = d < head_dim
    q = tl.load(q_ptr + b * q_sb + h * q_sh + d, mask=dmask, other=0.0).to(tl.float32) * qk_scale
    m = tl.full([], float("-inf"), tl.float32)
    l = tl.full([], 0.0, tl.float32)
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, ctx, BLOCK_N):
        t = start + tl.arange(0, BLOCK_N)
        tmask = t < ctx
        page = tl.load(bt_ptr + b * bt_sb + t // block_size, mask=tmask, other=0).to(tl.int64)
        off = t % block_size
        kmask = tmask[:, None] & dmask[None, :]
        k_row = page * k_sb + off * k_ss + kvh * k_sh
        k = tl.load(kc_ptr + k_row[:, None] + d[None, :], mask=kmask, other=0.0).to(tl.float32)
        s = tl.where(tmask, tl.sum(k * q[None, :], axis=1), float("-inf"))  # log2-domain scores
        m_new = tl.maximum(m, tl.max(s, axis=0))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new)
        v_row = page * v_sb + off * v_ss + kvh * v_sh
        v = tl.load(vc_ptr + v_row[:, None] + d[None, :], mask=kmask, other=0.0).to(tl.float32)
        l = l * alpha + tl.sum(p, axis=0)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        m = m_new
    out = acc / l
    tl.store(o_ptr + b * o_sb + h * o_sh + d, out.to(o_ptr.dtype.element_ty), mask=dmask)


class ModelNew(torch.nn.Module):
    def forward(self, query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
                block_table: torch.Tensor, context_lens: torch.Tensor) -> torch.Tensor:
        batch, n_q, d = query.shape
        block_size, n_kv = key_cache.shape[1], key_cache.shape[2]
        q = query.contiguous()
        kc = key_cache.contiguous()
        vc = value_cache.contiguous()
        bt = block_table.contiguous()
        lens = context_lens.contiguous()
        out = torch.empty((batch, n_q, d), dtype=query.dtype, device=query.device)
        qk_scale = d ** -0.5 * 1.4426950408889634  # softmax scale and log2(e), for exp2
        if batch > 0:
            _decode_head[(batch, n_q)](
                q, kc, vc, bt, lens, out, qk_scale, n_q // n_kv, block_size, d,
                q.stride(0), q.stride(1), kc.stride(0), kc.stride(1), kc.stride(2),
                vc.stride(0), vc.stride(1), vc.stride(2), bt.stride(0), out.stride(0), out.stride(1),
                BLOCK_N=BLOCK_N, BLOCK_D=triton.next_power_of_2(d), num_warps=NUM_WARPS,
            )
        return out
