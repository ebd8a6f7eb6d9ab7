"""
---
op: prefill_attention_causal
strategy: query-block-two-pass-softmax
techniques: [two-pass-softmax, tiling, tensor-cores, fp32-accumulate, exp2, causal-block-skipping, varlen, gqa]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [16, 32, 64, 128], default: 32}
  NUM_WARPS: {values: [4, 8], default: 4}
requires: []
sources:
  - https://arxiv.org/abs/1805.02867 (online normalizer calculation for softmax)
  - https://arxiv.org/abs/2205.14135 (FlashAttention: tiling attention so scores stay on chip)
---
One program per (query block, sequence, query head), two sweeps over the key tiles up to the
diagonal. The first computes only Q.K^T and the per-row maximum and denominator (the denominator
rescaled as the maximum grows); the second recomputes the scores, turns them into final
probabilities exp2(s - m) / l and accumulates P.V with tl.dot, so the output accumulator is never
rescaled. It is easier to read and to verify than the online form and never divides at the end,
but it does the Q.K^T product twice and reads the keys twice, so it is slower when the product
is the bottleneck (long sequences); every key tile pays the causal mask.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 32
NUM_WARPS = 4


@triton.jit
def _two_pass_fwd(q_ptr, k_ptr, v_ptr, cu_ptr, o_ptr, qk_scale, group, head_dim,
                  q_st, q_sh, k_st, k_sh, v_st, v_sh, o_st, o_sh,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr,
                  PRECISION: tl.constexpr):
    mb = tl.program_id(0)
    b = tl.program_id(1)
    h = tl.program_id(2)
    lo = tl.load(cu_ptr + b)
    n = tl.load(cu_ptr + b + 1) - lo
    q_start = mb * BLOCK_M
    if q_start < n:
        kvh = h // group
        rows = q_start + tl.arange(0, BLOCK_M)
        rmask = rows < n
        d = tl.arange(0, BLOCK_D)
        dmask = d < head_dim
        tok = (lo + rows).to(tl.int64)
        q = tl.load(q_ptr + tok[:, None] * q_st + h * q_sh + d[None, :],
                    mask=rmask[:, None] & dmask[None, :], other=0.0)
        k_base = k_ptr + lo.to(tl.int64) * k_st + kvh * k_sh
        v_base = v_ptr + lo.to(tl.int64) * v_st + kvh * v_sh
        end = tl.minimum(n, q_start + BLOCK_M)
        cols0 = tl.arange(0, BLOCK_N)
        # pass 1: row maximum and denominator
        m = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l = tl.zeros([BLOCK_M], dtype=tl.float32)
        for start in range(0, end, BLOCK_N):
            cols = start + cols0
            cmask = cols < n
            k = tl.load(k_base + cols[:, None].to(tl.int64) * k_st + d[None, :],
                        mask=cmask[:, None] & dmask[None, :], other=0.0)
            s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale
            s = tl.where((cols[None, :] <= rows[:, None]) & cmask[None, :], s, float("-inf"))
            m_new = tl.maximum(m, tl.max(s, axis=1))
            l = l * tl.exp2(m - m_new) + tl.sum(tl.exp2(s - m_new[:, None]), axis=1)
            m = m_new
        inv_l = 1.0 / l
        # pass 2: final probabilities times V
        acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
        for start in range(0, end, BLOCK_N):
            cols = start + cols0
            cmask = cols < n
            kv_mask = cmask[:, None] & dmask[None, :]
            k = tl.load(k_base + cols[:, None].to(tl.int64) * k_st + d[None, :], mask=kv_mask, other=0.0)
            v = tl.load(v_base + cols[:, None].to(tl.int64) * v_st + d[None, :], mask=kv_mask, other=0.0)
            s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale
            s = tl.where((cols[None, :] <= rows[:, None]) & cmask[None, :], s, float("-inf"))
            p = tl.exp2(s - m[:, None]) * inv_l[:, None]
            acc += tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        tl.store(o_ptr + tok[:, None] * o_st + h * o_sh + d[None, :], acc.to(o_ptr.dtype.element_ty),
                 mask=rmask[:, None] & dmask[None, :])


class ModelNew(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens: torch.Tensor,
                max_seqlen: int) -> torch.Tensor:
        total, n_q, d = q.shape
        n_kv = k.shape[1]
        qc, kc, vc = q.contiguous(), k.contiguous(), v.contiguous()
        cu = cu_seqlens.contiguous()
        batch = cu.shape[0] - 1
        out = torch.empty((total, n_q, d), dtype=q.dtype, device=q.device)
        qk_scale = d ** -0.5 * 1.4426950408889634  # softmax scale and log2(e), for exp2
        if total > 0 and batch > 0:
            grid = (triton.cdiv(max_seqlen, BLOCK_M), batch, n_q)
            _two_pass_fwd[grid](
                qc, kc, vc, cu, out, qk_scale, n_q // n_kv, d,
                qc.stride(0), qc.stride(1), kc.stride(0), kc.stride(1), vc.stride(0), vc.stride(1),
                out.stride(0), out.stride(1),
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=max(16, triton.next_power_of_2(d)),
                PRECISION="ieee" if q.dtype == torch.float32 else "tf32", num_warps=NUM_WARPS,
            )
        return out
