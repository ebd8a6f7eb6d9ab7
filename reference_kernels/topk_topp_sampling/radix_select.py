"""
---
op: topk_topp_sampling
strategy: sort-free-radix-select-multi-pivot
techniques: [sort-free, radix-select, multi-pivot-counting, order-preserving-float-key, exponential-race-sampling, one-row-per-program]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [256, 512, 1024, 2048], default: 1024}
  RADIX_BITS: {values: [2, 4], default: 4}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://flashinfer.ai/2025/03/10/sampling.html (sorting-free top-k / top-p sampling)
  - https://github.com/vllm-project/vllm/blob/main/vllm/v1/sample/ops/topk_topp_sampler.py (top-k then top-p semantics)
---
A radix select instead of a bisection: each sweep of the row compares every key against
2^RADIX_BITS candidate thresholds at once (a [BLOCK, 2^RADIX_BITS] compare reduced over the
block), so one sweep fixes RADIX_BITS bits of the threshold and 32 / RADIX_BITS sweeps find it
exactly. The top-k threshold is the k-th largest order-preserving key (counts per candidate); the
top-p cut is the largest float bit pattern whose strictly-greater mass is still >= top_p * total
(masses per candidate). With 4 bits that is 8 + 8 sweeps instead of 32 + 31, trading row re-reads
for 16x more compares per element, which suits a row that sits in L2 and a GPU with ALU to spare.
A last sweep runs the exponential race: the kept token with the largest e / q wins. Ties are exact: thresholds, not ranks.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
RADIX_BITS = 4
NUM_WARPS = 8


@triton.jit
def _order_key(x):
    """fp32 -> int64 in [0, 2^32) with the same order as the floats."""
    b = x.to(tl.int32, bitcast=True)
    return (b ^ ((b >> 31) & 0x7FFFFFFF)).to(tl.int64) + 2147483648


@triton.jit
def _sample_row_radix(x_ptr, k_ptr, p_ptr, q_ptr, out_ptr, vocab, x_stride, q_stride,
                      BLOCK: tl.constexpr, RADIX_BITS: tl.constexpr):
    NC: tl.constexpr = 1 << RADIX_BITS
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * x_stride
    offs = tl.arange(0, BLOCK)
    digits = tl.arange(0, NC).to(tl.int64)
    top_k = tl.load(k_ptr + row)
    top_p = tl.load(p_ptr + row).to(tl.float32)
    mx = tl.full([], float("-inf"), tl.float32)
    for s in range(0, vocab, BLOCK):
        x = tl.load(base + s + offs, mask=s + offs < vocab, other=float("-inf")).to(tl.float32)
        mx = tl.maximum(mx, tl.max(x, axis=0))
    # top-k: the largest key t with count(key >= t) >= k, RADIX_BITS bits per sweep
    kth = tl.full([], 0, tl.int64)
    if top_k < vocab:
        for i in range(32 // RADIX_BITS):
            cands = kth + (digits << (32 - RADIX_BITS * (i + 1)))
            cnt = tl.zeros([NC], dtype=tl.int32)
            for s in range(0, vocab, BLOCK):
                valid = s + offs < vocab
                x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                ge = valid[:, None] & (_order_key(x)[:, None] >= cands[None, :])
                cnt += tl.sum(ge.to(tl.int32), axis=0)
            kth = tl.max(tl.where(cnt >= top_k, cands, 0), axis=0)  # digit 0 always qualifies
    total = tl.full([], 0.0, tl.float32)
    for s in range(0, vocab, BLOCK):
        valid = s + offs < vocab
        x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
        e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
        total += tl.sum(e, axis=0)
    # top-p: the largest cut c with mass(e > c) >= top_p * total, RADIX_BITS bits per sweep
    cut = tl.full([], 0, tl.int64)
    if top_p < 1.0:
        need = top_p * total
        for i in range(32 // RADIX_BITS):
            cands = cut + (digits << (32 - RADIX_BITS * (i + 1)))
            mass = tl.zeros([NC], dtype=tl.float32)
            for s in range(0, vocab, BLOCK):
                valid = s + offs < vocab
                x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
                above = e.to(tl.int32, bitcast=True).to(tl.int64)[:, None] > cands[None, :]
                mass += tl.sum(tl.where(above, e[:, None], 0.0), axis=0)
            cut = tl.max(tl.where(mass >= need, cands, 0), axis=0)  # digit 0 always qualifies
    # exponential race over the kept weights: the largest e / q, the first index on ties
    qbase = q_ptr + row * q_stride
    best = tl.full([], -2.0, tl.float32)
    best_i = tl.full([], 0, tl.int32)
    for s in range(0, vocab, BLOCK):
        idx = s + offs
        valid = idx < vocab
        x = tl.load(base + idx, mask=valid, other=0.0).to(tl.float32) + 0.0
        e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
        kept = e.to(tl.int32, bitcast=True).to(tl.int64) > cut
        q = tl.load(qbase + idx, mask=valid, other=1.0)
        score = tl.where(kept, tl.math.div_rn(e, q), -1.0)
        top = tl.max(score, axis=0)
        at = tl.min(tl.where(score == top, idx, 2147483647), axis=0)
        better = top > best
        best_i = tl.where(better, at, best_i)
        best = tl.where(better, top, best)
    tl.store(out_ptr + row, best_i.to(tl.int64))


class ModelNew(torch.nn.Module):
    def forward(self, logits: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
                noise: torch.Tensor) -> torch.Tensor:
        x = logits.contiguous()
        n_rows, vocab = x.shape
        q = noise.contiguous()
        out = torch.empty((n_rows,), dtype=torch.int64, device=x.device)
        if n_rows > 0:
            _sample_row_radix[(n_rows,)](x, top_k.contiguous(), top_p.contiguous(), q,
                                         out, vocab, x.stride(0), q.stride(0), BLOCK=BLOCK, RADIX_BITS=RADIX_BITS,
                                         num_warps=NUM_WARPS)
        return out
