"""
---
op: topk_topp_sampling
strategy: split-row-distance-histogram-candidates
techniques: [sort-free, split-row, 2d-grid, partial-results-workspace, intermediate-buffers, tl-histogram, candidate-compaction, threshold-search, bitwise-bisection, order-preserving-float-key, exponential-race-sampling, lowest-index-tie-break, exact-fallback, deterministic]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [256, 512, 1024, 2048], default: 1024}
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 2}
  HIST_BITS: {values: [6, 7], default: 6}
  CANDIDATES: {values: [4096, 8192, 16384], default: 16384}
  NUM_WARPS: {values: [4, 8, 16], default: 8}
requires: []
sources:
  - https://flashinfer.ai/2025/03/10/sampling.html (sorting-free top-k / top-p sampling)
  - https://github.com/vllm-project/vllm/blob/main/vllm/v1/sample/ops/topk_topp_sampler.py (top-k then top-p semantics)
  - https://triton-lang.org/main/python-api/generated/triton.language.histogram.html
---
Measured on an H200 (bf16 logits, 128K-152K vocabulary), the two earlier kernels of this op,
bisection_threshold and radix_select, lose to torch.compile of the reference (suite geomean 0.49x):
on llama3-decode-256, -32 and qwen2.5-decode-64, and worst on llama3-decode-1. Both run one
program per row and re-read the row 16 to 64 times to pin the thresholds bit by bit, so with one
row a single SM walks 128K logits 16+ times while 131 SMs idle, and with 32-64 rows most SMs idle.

Here every row is cut into n_split chunks, chosen so that rows x chunks is about PROGRAMS_PER_SM
programs per SM (SM count from the device, cached; a chunk is a whole number of BLOCKs and at most
16 BLOCKs), and the thresholds are found on a small candidate set C instead of on the row.
Five launches, three streaming passes over the logits and one over the noise:
1. (rows x chunks) each chunk's max.
2. (rows x chunks) with the row max m, each token's distance d = m - x goes to one of 2^HIST_BITS
   buckets by the float bits of 1 + d (8 octaves of 2^(HIST_BITS-3) buckets: 1/8 logit wide next
   to the max, wider further down; monotone in x, so "bucket <= b" is always a set of the largest
   logits, ties included). The chunk's tl.histogram is written out, and gives the largest bucket
   beta_c whose prefix still fits the chunk's CANDIDATES / n_split slots; a second walk over the
   chunk (from cache) stores those tokens' logits in index order. It also writes the chunk's sum
   of exp(x - m), the top-p total of rows without top-k, and for those rows the stored tokens'
   mass per bucket (a one-hot sum over the slots only, not the chunk).
3. (rows) per row: C = the tokens of buckets <= b_c, where b_c is the bucket of the k-th largest
   logit by the summed chunk histograms (top-k on), or else (top-p alone) the first bucket past
   those whose summed mass reaches top_p * total. When every chunk stored its share of C
   (b_c <= min beta_c), C is gathered into a dense list, walked in THRESHOLD_TILE tiles: the
   top-k threshold is the k-th largest order-preserving key by a 32-step bisection (C is an upper
   set with >= k tokens, so its counts at or above the threshold are the row's), and the top-p
   cut is the largest float bit pattern c with mass(e > c) >= top_p * total by a 31-step
   bisection on C's e. With top-k on, every kept token is in C; without it, the cut is exact when
   it is at least a bound B on every weight outside C (min of C's lightest and exp(-the smallest
   distance past bucket b_c)), since masses above B are C's, or when C is the whole row.
   Otherwise (a chunk overflowed its slots: massive ties, a very flat row, or a k-th logit or
   top-p cut in a crowded far bucket) the row falls back to exact radix searches over the whole
   row in that one program (4 bits a sweep, up to 17 sweeps): correct but slow, and meant to be
   rare on sampling logits.
4. (rows x chunks) the exponential race on the chunk's kept tokens (largest e / q, rounded to
   nearest as torch divides, the smallest index on ties).
5. (rows) the row's best chunk: the largest score, the smallest index on ties.
Thresholds, not ranks: ties at the k-th value and equal probabilities are kept together, and
e = exp(x - max) in fp32 is computed the same way in every pass. Summation order differs from the
reference's (chunked sums), which the op's description accepts. Workspace is written, never
accumulated, so nothing needs zeroing and results are deterministic.

Why it should help: the row is read 3 times (plus one cached re-read) instead of 16-64, and every
pass but the per-row threshold step spreads over the whole GPU, which matters most for
llama3-decode-1 (about 126 programs instead of 1). The cost moved into step 3 is ~63 reductions
over C per row, one program per row (C is ~20-150 tokens for top_k <= 100; on this op's inputs
with top_k = vocab, up to ~4.4K tokens at top_p = 0.95 for a 128K vocabulary, ~11K for 256K), and
tl.histogram lowers to ballots whose cost grows with the bin count, hence only 64-128 buckets.

Measured on the H200 (2026-12-04, tools/suite_bench.py, bf16, CUDA events, exact at every shape
and held-out shape): llama3-decode-1 98.5 µs against torch.compile's 194.0 (1.97x), llama3-decode-32
164.6 against 764.0 (4.64x), qwen2.5-decode-64 231.1 against 1585.9 (6.86x), llama3-decode-256
535.5 against 4951.6 (9.25x); bisection_threshold took 1121-3405 µs there. At one row it is still
five launches and three passes over 128K logits (SOL 0.003): the time is latency, not bandwidth.
"""

import functools

import torch
import triton
import triton.language as tl

BLOCK = 1024
PROGRAMS_PER_SM = 2
HIST_BITS = 6
CANDIDATES = 16384
NUM_WARPS = 8
DEFAULT_SMS = 132        # the SM count assumed off CUDA (the interpreter has none)
MAX_CHUNK_BLOCKS = 16    # a chunk is at most this many BLOCKs, so its second walk hits in cache
MASS_SUB = 128          # the [sub, buckets] one-hot tile of the per-bucket masses of stored tokens
THRESHOLD_TILE = 2048    # the register tile the per-row threshold step walks its candidates in
FALLBACK_BLOCK = 512     # the [block, 16] compare tile of the whole-row fallback


@triton.jit
def _order_key(x):
    """fp32 -> int64 in [0, 2^32) with the same order as the floats."""
    b = x.to(tl.int32, bitcast=True)
    return (b ^ ((b >> 31) & 0x7FFFFFFF)).to(tl.int64) + 2147483648


@triton.jit
def _bucket(x, mx, HIST_BITS: tl.constexpr):
    """Bucket of a logit by its distance below the row max: the float bits of 1 + (mx - x), 8
    octaves of 2^(HIST_BITS - 3) buckets, the rest in the last one. Non-decreasing as x falls."""
    u = ((mx - x) + 1.0).to(tl.int32, bitcast=True) - 0x3F800000
    return tl.minimum(u >> (26 - HIST_BITS), (1 << HIST_BITS) - 1)


@triton.jit
def _chunk_max(x_ptr, max_ptr, vocab, x_stride, chunk, n_split, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1)
    offs = tl.arange(0, BLOCK)
    start = c * chunk
    end = tl.minimum(start + chunk, vocab)
    mx = tl.full([], float("-inf"), tl.float32)
    for s in range(start, end, BLOCK):
        x = tl.load(x_ptr + row * x_stride + s + offs, mask=s + offs < end, other=float("-inf"))
        mx = tl.maximum(mx, tl.max(x.to(tl.float32), axis=0))
    tl.store(max_ptr + row * n_split + c, mx)


@triton.jit
def _chunk_candidates(x_ptr, k_ptr, p_ptr, max_ptr, hist_ptr, mass_ptr, beta_ptr, cnt_ptr, sum_ptr, store_ptr,
                      vocab, x_stride, chunk, n_split,
                      BLOCK: tl.constexpr, SPLIT_P2: tl.constexpr, SLOTS: tl.constexpr,
                      HIST_BITS: tl.constexpr, SUB: tl.constexpr):
    NB: tl.constexpr = 1 << HIST_BITS
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1)
    top_k = tl.load(k_ptr + row)
    top_p = tl.load(p_ptr + row).to(tl.float32)
    if (top_k < vocab) | (top_p < 1.0):  # rows that keep everything need no candidates
        parts = tl.arange(0, SPLIT_P2)
        mx = tl.max(tl.load(max_ptr + row * n_split + parts, mask=parts < n_split, other=float("-inf")), axis=0)
        offs = tl.arange(0, BLOCK)
        base = x_ptr + row * x_stride
        start = c * chunk
        end = tl.minimum(start + chunk, vocab)
        hist = tl.zeros([NB], dtype=tl.int32)
        n_pad = tl.full([], 0, tl.int32)
        total = tl.full([], 0.0, tl.float32)
        for s in range(start, end, BLOCK):
            valid = s + offs < end
            x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
            b = tl.where(valid, _bucket(x, mx, HIST_BITS), NB - 1)  # padding goes to the last bin...
            hist += tl.histogram(b, NB)
            n_pad += tl.sum((~valid).to(tl.int32), axis=0)
            total += tl.sum(tl.where(valid, tl.exp(x - mx), 0.0), axis=0)
        bins = tl.arange(0, NB)
        hist -= tl.where(bins == NB - 1, n_pad, 0)  # ...and is taken out again
        # the largest bucket whose prefix (the tokens nearest the max) fits this chunk's slots
        beta = tl.sum((tl.cumsum(hist, axis=0) <= SLOTS).to(tl.int32), axis=0) - 1
        stored = tl.full([], 0, tl.int32)
        if beta >= 0:
            slots = store_ptr + (row * n_split + c) * SLOTS
            for s in range(start, end, BLOCK):
                valid = s + offs < end
                x = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                sel = valid & (_bucket(x, mx, HIST_BITS) <= beta)
                pos = stored + tl.cumsum(sel.to(tl.int32), axis=0) - 1
                tl.store(slots + pos, x, mask=sel & (pos < SLOTS))
                stored += tl.sum(sel.to(tl.int32), axis=0)
            if top_k >= vocab:
                # top-p alone: the stored tokens' mass per bucket (exact for buckets <= beta), which
                # places the row's candidate bound; a one-hot [SUB, NB] sum over the slots only
                tl.debug_barrier()  # the slots were written by other threads of this program
                mass = tl.zeros([NB], dtype=tl.float32)
                for j0 in range(0, stored, SUB):
                    j = j0 + tl.arange(0, SUB)
                    xs = tl.load(slots + j, mask=j < stored, other=float("-inf"))
                    es = tl.exp(xs - mx)
                    hit = _bucket(xs, mx, HIST_BITS)[:, None] == bins[None, :]
                    mass += tl.sum(tl.where(hit, es[:, None], 0.0), axis=0)
                tl.store(mass_ptr + (row * n_split + c) * NB + bins, mass)
        tl.store(hist_ptr + (row * n_split + c) * NB + bins, hist)
        tl.store(beta_ptr + row * n_split + c, beta)
        tl.store(cnt_ptr + row * n_split + c, stored)
        tl.store(sum_ptr + row * n_split + c, total)


@triton.jit
def _row_thresholds(x_ptr, k_ptr, p_ptr, max_ptr, hist_ptr, mass_ptr, beta_ptr, cnt_ptr, sum_ptr, store_ptr, dense_ptr,
                    mx_ptr, kth_ptr, cut_ptr, vocab, x_stride, n_split,
                    SPLIT_P2: tl.constexpr, SLOTS: tl.constexpr, HIST_BITS: tl.constexpr,
                    TILE: tl.constexpr, HG: tl.constexpr, FALLBACK_BLOCK: tl.constexpr):
    NB: tl.constexpr = 1 << HIST_BITS
    DENSE: tl.constexpr = SPLIT_P2 * SLOTS
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * x_stride
    parts = tl.arange(0, SPLIT_P2)
    live_part = parts < n_split
    mx = tl.max(tl.load(max_ptr + row * n_split + parts, mask=live_part, other=float("-inf")), axis=0)
    top_k = tl.minimum(tl.maximum(tl.load(k_ptr + row), 1), vocab)  # as the reference clamps
    top_p = tl.load(p_ptr + row).to(tl.float32)
    need_k = top_k < vocab
    need_p = top_p < 1.0
    kth = tl.full([], 0, tl.int64)   # keep key >= kth (0: every token)
    cut = tl.full([], 0, tl.int64)   # keep bits(e) > cut (0: every e > 0)
    if need_k | need_p:
        beta_min = tl.min(tl.load(beta_ptr + row * n_split + parts, mask=live_part, other=NB), axis=0)
        row_total = tl.sum(tl.load(sum_ptr + row * n_split + parts, mask=live_part, other=0.0), axis=0)
        # C = the tokens of buckets <= b_c, a set of the largest logits, ties included
        bins = tl.arange(0, NB)
        if need_k:
            # the bucket of the k-th largest logit, from the row's bucket counts
            hist = tl.zeros([NB], dtype=tl.int32)
            for c0 in range(0, n_split, HG):
                cs = c0 + tl.arange(0, HG)
                h = tl.load(hist_ptr + (row * n_split + cs[:, None]) * NB + bins[None, :],
                            mask=cs[:, None] < n_split, other=0)
                hist += tl.sum(h, axis=0)
            b_c = tl.sum((tl.cumsum(hist, axis=0) < top_k).to(tl.int32), axis=0)
        else:
            # top-p alone: the first bucket past those whose mass reaches top_p * total (bucket
            # masses are exact up to beta_min, the bound is capped there; checked exactly below)
            mass = tl.zeros([NB], dtype=tl.float32)
            for c0 in range(0, n_split, HG):
                cs = c0 + tl.arange(0, HG)
                w = tl.load(mass_ptr + (row * n_split + cs[:, None]) * NB + bins[None, :],
                            mask=cs[:, None] < n_split, other=0.0)
                mass += tl.sum(w, axis=0)
            b_c = tl.sum((tl.cumsum(mass, axis=0) - mass < top_p * row_total).to(tl.int32), axis=0)
            b_c = tl.minimum(tl.minimum(b_c, NB - 1), beta_min)
        ok = (b_c >= 0) & (b_c <= beta_min)  # every chunk stored all of its tokens in C
        n_c = tl.full([], 0, tl.int32)
        if ok:
            # gather C from the chunks' slots into one dense list (chunk-major, index order)
            dense = dense_ptr + row * DENSE
            lane = tl.arange(0, TILE)
            for f0 in range(0, n_split * SLOTS, TILE):
                f = f0 + lane
                part = f // SLOTS
                slot = f % SLOTS
                cnt = tl.load(cnt_ptr + row * n_split + part, mask=part < n_split, other=0)
                live = (part < n_split) & (slot < cnt)
                xs = tl.load(store_ptr + (row * n_split + part) * SLOTS + slot, mask=live, other=0.0)
                sel = live & (_bucket(xs, mx, HIST_BITS) <= b_c)
                pos = n_c + tl.cumsum(sel.to(tl.int32), axis=0) - 1
                tl.store(dense + pos, xs, mask=sel)
                n_c += tl.sum(sel.to(tl.int32), axis=0)
            tl.debug_barrier()  # the dense list is read back by other threads of this program
            ok = (n_c >= 1) & ((n_c >= top_k) | (top_k >= vocab))
            if ok:
                if need_k:
                    # the largest key t with count(key >= t) >= top_k, i.e. the k-th largest logit
                    # (C is an upper set with >= top_k tokens: its counts there are the row's)
                    step = tl.full([], 2147483648, tl.int64)
                    for _ in range(32):
                        cand = kth + step
                        acc = tl.zeros([TILE], dtype=tl.int32)
                        for t in range(0, n_c, TILE):
                            m = t + lane < n_c
                            xs = tl.load(dense + t + lane, mask=m, other=0.0)
                            acc += (m & (_order_key(xs) >= cand)).to(tl.int32)
                        kth = tl.where(tl.sum(acc, axis=0) >= top_k, cand, kth)
                        step = step // 2
                if need_p:
                    total = row_total
                    if need_k:  # every top-k survivor is in C
                        acc_e = tl.zeros([TILE], dtype=tl.float32)
                        for t in range(0, n_c, TILE):
                            m = t + lane < n_c
                            xs = tl.load(dense + t + lane, mask=m, other=0.0)
                            acc_e += tl.where(m & (_order_key(xs) >= kth), tl.exp(xs - mx), 0.0)
                        total = tl.sum(acc_e, axis=0)
                    need = top_p * total
                    # the largest cut c with mass(e > c) >= top_p * total; keep e > c
                    step = tl.full([], 1073741824, tl.int64)
                    for _ in range(31):
                        cand = cut + step
                        acc_e = tl.zeros([TILE], dtype=tl.float32)
                        for t in range(0, n_c, TILE):
                            m = t + lane < n_c
                            xs = tl.load(dense + t + lane, mask=m, other=0.0)
                            e = tl.where(m & (_order_key(xs) >= kth), tl.exp(xs - mx), 0.0)
                            acc_e += tl.where(e.to(tl.int32, bitcast=True) > cand, e, 0.0)
                        cut = tl.where(tl.sum(acc_e, axis=0) >= need, cand, cut)
                        step = step // 2
                    if top_k >= vocab:
                        # every token outside C weighs at most B = min(C's lightest, exp(-the
                        # smallest distance past bucket b_c, less a 2^-12 relative margin for the
                        # rounding of 1 + d and of exp)); where c >= B the masses over C are the
                        # row's, so the cut is exact when it lands there (or C is the whole row)
                        e_min = tl.full([TILE], 2147483647, tl.int32)
                        for t in range(0, n_c, TILE):
                            m = t + lane < n_c
                            xs = tl.load(dense + t + lane, mask=m, other=0.0)
                            eb = tl.exp(xs - mx).to(tl.int32, bitcast=True)
                            e_min = tl.minimum(e_min, tl.where(m, eb, 2147483647))
                        edge = (((b_c + 1) << (26 - HIST_BITS)) + 0x3F800000).to(tl.float32, bitcast=True)
                        e_out = tl.exp(-tl.maximum((edge - 1.0) - edge * 0.000244140625, 0.0))
                        bound = tl.minimum(tl.min(e_min, axis=0), e_out.to(tl.int32, bitcast=True))
                        ok = (n_c == vocab) | (cut >= bound)
        if ok == 0:
            # fallback: exact radix searches over the whole row, 4 bits a sweep, in this program
            offs = tl.arange(0, FALLBACK_BLOCK)
            digits = tl.arange(0, 16).to(tl.int64)
            kth = tl.full([], 0, tl.int64)
            cut = tl.full([], 0, tl.int64)
            if need_k:
                for i in range(8):
                    cands = kth + (digits << (28 - 4 * i))
                    n_ge = tl.zeros([16], dtype=tl.int32)
                    for s in range(0, vocab, FALLBACK_BLOCK):
                        valid = s + offs < vocab
                        xs = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                        ge = valid[:, None] & (_order_key(xs)[:, None] >= cands[None, :])
                        n_ge += tl.sum(ge.to(tl.int32), axis=0)
                    kth = tl.max(tl.where(n_ge >= top_k, cands, 0), axis=0)  # digit 0 always qualifies
            if need_p:
                total = row_total
                if need_k:
                    total = tl.full([], 0.0, tl.float32)
                    for s in range(0, vocab, FALLBACK_BLOCK):
                        valid = s + offs < vocab
                        xs = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                        total += tl.sum(tl.where(valid & (_order_key(xs) >= kth), tl.exp(xs - mx), 0.0), axis=0)
                need = top_p * total
                for i in range(8):
                    cands = cut + (digits << (28 - 4 * i))
                    mass = tl.zeros([16], dtype=tl.float32)
                    for s in range(0, vocab, FALLBACK_BLOCK):
                        valid = s + offs < vocab
                        xs = tl.load(base + s + offs, mask=valid, other=0.0).to(tl.float32) + 0.0
                        es = tl.where(valid & (_order_key(xs) >= kth), tl.exp(xs - mx), 0.0)
                        above = es.to(tl.int32, bitcast=True).to(tl.int64)[:, None] > cands[None, :]
                        mass += tl.sum(tl.where(above, es[:, None], 0.0), axis=0)
                    cut = tl.max(tl.where(mass >= need, cands, 0), axis=0)
    tl.store(mx_ptr + row, mx)
    tl.store(kth_ptr + row, kth)
    tl.store(cut_ptr + row, cut)


@triton.jit
def _chunk_race(x_ptr, q_ptr, mx_ptr, kth_ptr, cut_ptr, best_ptr, best_i_ptr, vocab, x_stride, q_stride,
                chunk, n_split, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1)
    offs = tl.arange(0, BLOCK)
    mx = tl.load(mx_ptr + row)
    kth = tl.load(kth_ptr + row)
    cut = tl.load(cut_ptr + row)
    start = c * chunk
    end = tl.minimum(start + chunk, vocab)
    best = tl.full([], -3.0, tl.float32)
    best_i = tl.full([], 0, tl.int32)
    for s in range(start, end, BLOCK):
        idx = s + offs
        valid = idx < end
        x = tl.load(x_ptr + row * x_stride + idx, mask=valid, other=0.0).to(tl.float32) + 0.0
        e = tl.where(valid & (_order_key(x) >= kth), tl.exp(x - mx), 0.0)
        kept = e.to(tl.int32, bitcast=True).to(tl.int64) > cut
        q = tl.load(q_ptr + row * q_stride + idx, mask=valid, other=1.0).to(tl.float32)
        score = tl.where(kept, tl.math.div_rn(e, q), -1.0)   # dropped tokens tie at -1, as in the reference
        score = tl.where(valid, score, -2.0)                 # lanes past the chunk never win
        top = tl.max(score, axis=0)
        at = tl.min(tl.where(score == top, idx, 2147483647), axis=0)
        better = top > best
        best_i = tl.where(better, at, best_i)
        best = tl.where(better, top, best)
    tl.store(best_ptr + row * n_split + c, best)
    tl.store(best_i_ptr + row * n_split + c, best_i)


@triton.jit
def _row_winner(best_ptr, best_i_ptr, out_ptr, n_split, SPLIT_P2: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    parts = tl.arange(0, SPLIT_P2)
    live = parts < n_split
    v = tl.load(best_ptr + row * n_split + parts, mask=live, other=-4.0)
    i = tl.load(best_i_ptr + row * n_split + parts, mask=live, other=2147483647)
    top = tl.max(v, axis=0)
    tl.store(out_ptr + row, tl.min(tl.where(live & (v == top), i, 2147483647), axis=0).to(tl.int64))


@functools.lru_cache(maxsize=None)
def _cuda_sms(index: int) -> int:
    return torch.cuda.get_device_properties(index).multi_processor_count


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return DEFAULT_SMS
    return _cuda_sms(device.index if device.index is not None else torch.cuda.current_device())


def _layout(n_rows: int, vocab: int, sms: int) -> tuple[int, int]:
    """(chunk length, chunks per row): about PROGRAMS_PER_SM programs per SM over all rows."""
    per_row = max(1, triton.cdiv(PROGRAMS_PER_SM * sms, n_rows))
    chunk = min(triton.cdiv(vocab, per_row), MAX_CHUNK_BLOCKS * BLOCK)
    chunk = triton.cdiv(chunk, BLOCK) * BLOCK
    return chunk, triton.cdiv(vocab, chunk)


class ModelNew(torch.nn.Module):
    def forward(self, logits: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
                noise: torch.Tensor) -> torch.Tensor:
        x = logits.contiguous()
        n_rows, vocab = x.shape
        q = noise.contiguous()
        k = top_k.contiguous()
        p = top_p.contiguous()
        dev = x.device
        out = torch.empty((n_rows,), dtype=torch.int64, device=dev)
        if n_rows == 0:
            return out
        chunk, n_split = _layout(n_rows, vocab, _sm_count(dev))
        split_p2 = triton.next_power_of_2(n_split)
        slots = max(min(CANDIDATES // split_p2, triton.next_power_of_2(chunk)), 1)  # per chunk
        nb = 1 << HIST_BITS
        part_f = torch.empty((3, n_rows, n_split), dtype=torch.float32, device=dev)  # max, sum e, best
        part_i = torch.empty((3, n_rows, n_split), dtype=torch.int32, device=dev)    # beta, stored, best index
        hist = torch.empty((n_rows, n_split, nb), dtype=torch.int32, device=dev)
        mass = torch.empty((n_rows, n_split, nb), dtype=torch.float32, device=dev)
        stored = torch.empty((n_rows, n_split, slots), dtype=torch.float32, device=dev)
        dense = torch.empty((n_rows, split_p2 * slots), dtype=torch.float32, device=dev)
        row_mx = torch.empty((n_rows,), dtype=torch.float32, device=dev)
        row_t = torch.empty((2, n_rows), dtype=torch.int64, device=dev)              # kth key, cut bits
        grid = (n_rows, n_split)
        _chunk_max[grid](x, part_f[0], vocab, x.stride(0), chunk, n_split, BLOCK=BLOCK, num_warps=NUM_WARPS)
        _chunk_candidates[grid](x, k, p, part_f[0], hist, mass, part_i[0], part_i[1], part_f[1], stored,
                                vocab, x.stride(0), chunk, n_split, BLOCK=BLOCK, SPLIT_P2=split_p2,
                                SLOTS=slots, HIST_BITS=HIST_BITS, SUB=min(slots, MASS_SUB), num_warps=NUM_WARPS)
        _row_thresholds[(n_rows,)](x, k, p, part_f[0], hist, mass, part_i[0], part_i[1], part_f[1], stored, dense,
                                   row_mx, row_t[0], row_t[1], vocab, x.stride(0), n_split,
                                   SPLIT_P2=split_p2, SLOTS=slots, HIST_BITS=HIST_BITS, TILE=THRESHOLD_TILE,
                                   HG=max(THRESHOLD_TILE // nb, 1), FALLBACK_BLOCK=FALLBACK_BLOCK,
                                   num_warps=NUM_WARPS)
        _chunk_race[grid](x, q, row_mx, row_t[0], row_t[1], part_f[2], part_i[2], vocab, x.stride(0),
                          q.stride(0), chunk, n_split, BLOCK=BLOCK, num_warps=NUM_WARPS)
        _row_winner[(n_rows,)](part_f[2], part_i[2], out, n_split, SPLIT_P2=split_p2, num_warps=4)
        return out
