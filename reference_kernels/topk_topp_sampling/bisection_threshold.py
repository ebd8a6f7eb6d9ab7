"""
---
op: topk_topp_sampling
strategy: sort-free-bitwise-bisection-thresholds
techniques: [sort-free, threshold-search, bitwise-bisection, order-preserving-float-key, exponential-race-sampling, one-row-per-program]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [512, 1024, 2048, 4096], default: 2048}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://flashinfer.ai/2025/03/10/sampling.html (sorting-free top-k / top-p sampling)
  - https://github.com/vllm-project/vllm/blob/main/vllm/v1/sample/ops/topk_topp_sampler.py (top-k then top-p semantics)
---
One program per row, no sort. Logits map to an order-preserving integer key (flip the magnitude
bits of negative floats), and the top-k threshold, the k-th largest key, is found bit by bit from
the most significant: a candidate bit stays set when at least k logits have a key >= the
candidate (32 counting sweeps of the row). The top-p cut is found the same way on the bit
patterns of the non-negative weights e = exp(x - max): the largest cut whose strictly-greater mass
is still >= top_p * total, so the kept set is exactly the weights above it (31 sweeps). A last
sweep runs vLLM's exponential race: among kept tokens the largest e / q wins, q the Exp(1) noise
row (division rounded to nearest, as torch divides, so scores match the reference bit for bit
where exp does). Rows with top_k = vocab or top_p = 1 skip their
search. It reads the row about 64 times (from L2 for a 128K vocabulary in bf16), so it is
latency- rather than bandwidth-bound; its virtue is exactness under ties with no sort.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048
NUM_WARPS = 8


@triton.jit
def _order_key(x):
    """fp32 -> int64 in [0, 2^32) with the same order as the floats."""
    b = x.to(tl.int32, bitcast=True)
    return (b ^ ((b >> 31) & 0x7FFFFFFF)).to(tl.int64) + 2147483648


@triton.jit
def _sample_row(x_ptr, k_ptr, p_ptr, q_ptr, out_ptr, vocab, x_stride, q_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * x_stride
    offs = tl.arange(0, BLOCK)
    top_k = tl.load(k_ptr + row)
    top_p = tl.load(p_ptr + row).to(tl.float32)
    mx = tl.full([], float("-inf"), tl.float32)
    for s in range(0, vocab, BLOCK):
        x = tl.load(base + s + offs, mask=s + offs < vocab, other=float("-inf")).to(tl.float32)
        mx = tl.maximum(mx, tl.max(x, axis=0))
    # top-k: the largest key t with count(key >= t) >= k, i.e. the k-th largest logit
    kth = tl.full([], 0, tl.int64)
    if top_k < vocab:
        step = tl.full([], 2147483648, tl.int64)
        for _ in range(32):
            cand = kth + step
            cnt = tl.full([], 0, tl.int32)
            for s in range(0, vocab, BLOCK):
                valid = s + offs < vocab
                x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                cnt += tl.sum((valid & (_order_key(x) >= cand)).to(tl.int32), axis=0)
            kth = tl.where(cnt >= top_k, cand, kth)
            step = step // 2
    # weights e of the top-k survivors and their total
    total = tl.full([], 0.0, tl.float32)
    for s in range(0, vocab, BLOCK):
        valid = s + offs < vocab
        x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
        e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
        total += tl.sum(e, axis=0)
    # top-p: the largest cut c (a float bit pattern) with mass(e > c) >= top_p * total; keep e > c
    cut = tl.full([], 0, tl.int32)
    if top_p < 1.0:
        need = top_p * total
        step32 = tl.full([], 1073741824, tl.int32)
        for _ in range(31):
            cand = cut + step32
            mass = tl.full([], 0.0, tl.float32)
            for s in range(0, vocab, BLOCK):
                valid = s + offs < vocab
                x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
                mass += tl.sum(tl.where(e.to(tl.int32, bitcast=True) > cand, e, 0.0), axis=0)
            cut = tl.where(mass >= need, cand, cut)
            step32 = step32 // 2
    # exponential race over the kept weights: the largest e / q, the first index on ties
    qbase = q_ptr + row * q_stride
    best = tl.full([], -2.0, tl.float32)
    best_i = tl.full([], 0, tl.int32)
    for s in range(0, vocab, BLOCK):
        idx = s + offs
        valid = idx < vocab
        x = tl.load(base + idx, mask=valid, other=0.0).to(tl.float32) + 0.0
        e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
        kept = e.to(tl.int32, bitcast=True) > cut
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
            _sample_row[(n_rows,)](x, top_k.contiguous(), top_p.contiguous(), q, out,
                                   vocab, x.stride(0), q.stride(0), BLOCK=BLOCK, num_warps=NUM_WARPS)
        return out
