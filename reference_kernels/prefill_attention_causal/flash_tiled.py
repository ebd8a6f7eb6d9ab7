"""
---
op: prefill_attention_causal
strategy: flash-attention-2-tiled-online-softmax
techniques: [flash-attention, online-softmax, tiling, tensor-cores, fp32-accumulate, exp2, causal-block-skipping, diagonal-only-masking, varlen, gqa]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_M: {values: [16, 32, 64, 128], default: 64}
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  NUM_WARPS: {values: [4, 8], default: 4}
  NUM_STAGES: {values: [1, 2, 3, 4], default: 2}
requires: []
sources:
  - https://arxiv.org/abs/2307.08691 (FlashAttention-2: parallelize over query blocks, online softmax)
  - https://triton-lang.org/main/getting-started/tutorials/06-fused-attention.html
---
One program per (query block, sequence, query head) keeps its BLOCK_M queries in registers and
streams the sequence's keys and values in BLOCK_N tiles with tl.dot, rescaling a running maximum,
denominator and fp32 accumulator (online softmax, exp2 with log2(e) folded into the scale), so the
score matrix never touches memory. Causality is used twice: key tiles past the query block are
never loaded (about half the work of a square), and tiles entirely below the diagonal run without
any mask; only the tiles that straddle the diagonal pay for the position compare. Programs of
query blocks beyond a short sequence's end return at once, which is the varlen cost of a grid
sized by max_seqlen.
"""

import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
NUM_WARPS = 4
NUM_STAGES = 2


@triton.jit
def _flash_fwd(q_ptr, k_ptr, v_ptr, cu_ptr, o_ptr, qk_scale, group, head_dim,
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
        m = tl.full([BLOCK_M], float("-inf"), tl.float32)
        l = tl.zeros([BLOCK_M], dtype=tl.float32)
        acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
        k_base = k_ptr + lo.to(tl.int64) * k_st + kvh * k_sh
        v_base = v_ptr + lo.to(tl.int64) * v_st + kvh * v_sh
        cols0 = tl.arange(0, BLOCK_N)
        # tiles wholly below the diagonal (every key precedes every query of the block): no mask
        full_end = (q_start // BLOCK_N) * BLOCK_N
        for start in range(0, full_end, BLOCK_N):
            cols = start + cols0
            k = tl.load(k_base + cols[:, None].to(tl.int64) * k_st + d[None, :], mask=dmask[None, :], other=0.0)
            v = tl.load(v_base + cols[:, None].to(tl.int64) * v_st + d[None, :], mask=dmask[None, :], other=0.0)
            s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale
            m_new = tl.maximum(m, tl.max(s, axis=1))
            alpha = tl.exp2(m - m_new)
            p = tl.exp2(s - m_new[:, None])
            l = l * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
            m = m_new
        # tiles that straddle the diagonal: causal and end-of-sequence masks
        diag_end = tl.minimum(n, q_start + BLOCK_M)
        for start in range(full_end, diag_end, BLOCK_N):
            cols = start + cols0
            cmask = cols < n
            kv_mask = cmask[:, None] & dmask[None, :]
            k = tl.load(k_base + cols[:, None].to(tl.int64) * k_st + d[None, :], mask=kv_mask, other=0.0)
            v = tl.load(v_base + cols[:, None].to(tl.int64) * v_st + d[None, :], mask=kv_mask, other=0.0)
            s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale
            s = tl.where((cols[None, :] <= rows[:, None]) & cmask[None, :], s, float("-inf"))
            m_new = tl.maximum(m, tl.max(s, axis=1))
            alpha = tl.exp2(m - m_new)
            p = tl.exp2(s - m_new[:, None])
            l = l * alpha + tl.sum(p, axis=1)
            acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
            m = m_new
        out = acc / l[:, None]
        tl.store(o_ptr + tok[:, None] * o_st + h * o_sh + d[None, :], out.to(o_ptr.dtype.element_ty),
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
            _flash_fwd[grid](
                qc, kc, vc, cu, out, qk_scale, n_q // n_kv, d,
                qc.stride(0), qc.stride(1), kc.stride(0), kc.stride(1), vc.stride(0), vc.stride(1),
                out.stride(0), out.stride(1),
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_D=max(16, triton.next_power_of_2(d)),
                PRECISION="ieee" if q.dtype == torch.float32 else "tf32",
                num_warps=NUM_WARPS, num_stages=NUM_STAGES,
            )
        return out
