"""
---
op: decode_attention_paged
strategy: split-k-flash-decoding-gqa-grouped
techniques: [split-k, flash-decoding, paged-kv-gather, online-softmax, log-sum-exp-merge, gqa-head-grouping, tensor-cores, fp32-accumulate, exp2, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [sm80, sm90, gfx942]
params:
  BLOCK_N: {values: [16, 32, 64, 128], default: 64}
  NUM_SPLITS: {values: [1, 2, 4, 8, 16, 32], default: 16}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://crfm.stanford.edu/2023/10/12/flashdecoding.html (Flash-Decoding: split the keys, merge with log-sum-exp)
  - https://github.com/vllm-project/vllm/blob/main/csrc/attention/attention_kernels.cuh (paged attention v2: partitions + reduce)
---
The context of each sequence is cut into NUM_SPLITS contiguous ranges (rounded to BLOCK_N tokens),
and one program per (sequence, KV head, split) handles all query heads of that KV head's GQA group
at once: the group's queries (padded to 16 rows) form the left operand of tl.dot against the
gathered key tile, so each KV page is read once per KV head instead of once per query head, and
the PV product is a second tl.dot with the probabilities cast to the value dtype. Each split writes
its normalized partial output and log-sum-exp (zeros and -inf for an empty split); a second kernel
per (sequence, query head) merges the splits with the log-sum-exp weights. The splits fill the GPU
at batch 1-8 with 16K contexts, at the price of a second launch and a small fp32 scratch.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 64
NUM_SPLITS = 16
NUM_WARPS = 4


@triton.jit
def _decode_split(q_ptr, kc_ptr, vc_ptr, bt_ptr, lens_ptr, po_ptr, plse_ptr, qk_scale, group,
                  block_size, head_dim, n_splits,
                  q_sb, q_sh, k_sb, k_ss, k_sh, v_sb, v_ss, v_sh, bt_sb, po_sb, po_sh, po_ss, pl_sb, pl_sh,
                  BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_G: tl.constexpr,
                  PRECISION: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    split = tl.program_id(2)
    ctx = tl.load(lens_ptr + b)
    chunk = tl.cdiv(tl.cdiv(ctx, n_splits), BLOCK_N) * BLOCK_N
    start = split * chunk
    end = tl.minimum(start + chunk, ctx)
    g = tl.arange(0, BLOCK_G)
    gmask = g < group
    heads = kvh * group + g
    d = tl.arange(0, BLOCK_D)
    dmask = d < head_dim
    q = tl.load(q_ptr + b * q_sb + heads[:, None] * q_sh + d[None, :],
                mask=gmask[:, None] & dmask[None, :], other=0.0)
    m = tl.full([BLOCK_G], float("-inf"), tl.float32)
    l = tl.zeros([BLOCK_G], dtype=tl.float32)
    acc = tl.zeros([BLOCK_G, BLOCK_D], dtype=tl.float32)
    for s0 in range(start, end, BLOCK_N):
        t = s0 + tl.arange(0, BLOCK_N)
        tmask = t < end
        page = tl.load(bt_ptr + b * bt_sb + t // block_size, mask=tmask, other=0).to(tl.int64)
        off = t % block_size
        kmask = tmask[:, None] & dmask[None, :]
        k = tl.load(kc_ptr + (page * k_sb + off * k_ss + kvh * k_sh)[:, None] + d[None, :], mask=kmask, other=0.0)
        s = tl.dot(q, tl.trans(k), input_precision=PRECISION) * qk_scale  # [BLOCK_G, BLOCK_N], log2 domain
        s = tl.where(tmask[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp2(m - m_new)
        p = tl.exp2(s - m_new[:, None])
        v = tl.load(vc_ptr + (page * v_sb + off * v_ss + kvh * v_sh)[:, None] + d[None, :], mask=kmask, other=0.0)
        l = l * alpha + tl.sum(p, axis=1)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v, input_precision=PRECISION)
        m = m_new
    live = l > 0.0  # an empty split (start >= end) leaves l = 0: write zeros and lse = -inf
    o = acc / tl.where(live, l, 1.0)[:, None]
    lse = tl.where(live, m + tl.log2(tl.where(live, l, 1.0)), float("-inf"))
    tl.store(po_ptr + b * po_sb + heads[:, None] * po_sh + split * po_ss + d[None, :], o,
             mask=gmask[:, None] & dmask[None, :])
    tl.store(plse_ptr + b * pl_sb + heads * pl_sh + split, lse, mask=gmask)


@triton.jit
def _merge_splits(po_ptr, plse_ptr, o_ptr, head_dim, n_splits, po_sb, po_sh, po_ss, pl_sb, pl_sh,
                  o_sb, o_sh, BLOCK_S: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    sp = tl.arange(0, BLOCK_S)
    smask = sp < n_splits
    d = tl.arange(0, BLOCK_D)
    dmask = d < head_dim
    lse = tl.load(plse_ptr + b * pl_sb + h * pl_sh + sp, mask=smask, other=float("-inf"))
    w = tl.exp2(lse - tl.max(lse, axis=0))  # split 0 is never empty, so the maximum is finite
    po = tl.load(po_ptr + b * po_sb + h * po_sh + sp[:, None] * po_ss + d[None, :],
                 mask=smask[:, None] & dmask[None, :], other=0.0)
    out = tl.sum(w[:, None] * po, axis=0) / tl.sum(w, axis=0)
    tl.store(o_ptr + b * o_sb + h * o_sh + d, out.to(o_ptr.dtype.element_ty), mask=dmask)


class ModelNew(torch.nn.Module):
    def forward(self, query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
                block_table: torch.Tensor, context_lens: torch.Tensor) -> torch.Tensor:
        batch, n_q, d = query.shape
        block_size, n_kv = key_cache.shape[1], key_cache.shape[2]
        group = n_q // n_kv
        q = query.contiguous()
        kc = key_cache.contiguous()
        vc = value_cache.contiguous()
        bt = block_table.contiguous()
        lens = context_lens.contiguous()
        out = torch.empty((batch, n_q, d), dtype=query.dtype, device=query.device)
        max_ctx = bt.shape[1] * block_size
        splits = max(1, min(NUM_SPLITS, triton.cdiv(max_ctx, BLOCK_N)))
        part_o = torch.empty((batch, n_q, splits, d), dtype=torch.float32, device=query.device)
        part_lse = torch.empty((batch, n_q, splits), dtype=torch.float32, device=query.device)
        qk_scale = d ** -0.5 * 1.4426950408889634  # softmax scale and log2(e), for exp2
        block_d = max(16, triton.next_power_of_2(d))
        if batch > 0:
            _decode_split[(batch, n_kv, splits)](
                q, kc, vc, bt, lens, part_o, part_lse, qk_scale, group, block_size, d, splits,
                q.stride(0), q.stride(1), kc.stride(0), kc.stride(1), kc.stride(2),
                vc.stride(0), vc.stride(1), vc.stride(2), bt.stride(0),
                part_o.stride(0), part_o.stride(1), part_o.stride(2), part_lse.stride(0), part_lse.stride(1),
                BLOCK_N=BLOCK_N, BLOCK_D=block_d, BLOCK_G=max(16, triton.next_power_of_2(group)),
                PRECISION="ieee" if query.dtype == torch.float32 else "tf32", num_warps=NUM_WARPS,
            )
            _merge_splits[(batch, n_q)](
                part_o, part_lse, out, d, splits, part_o.stride(0), part_o.stride(1), part_o.stride(2),
                part_lse.stride(0), part_lse.stride(1), out.stride(0), out.stride(1),
                BLOCK_S=triton.next_power_of_2(splits), BLOCK_D=block_d, num_warps=NUM_WARPS,
            )
        return out
