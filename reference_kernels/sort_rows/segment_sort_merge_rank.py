"""
---
op: sort_rows
strategy: warp-segment-sort-merge-rank
techniques: [tl-sort, bitonic-network, packed-sort-key, float-to-ordered-int, stable-by-index, single-warp-sort, segmented-sort, merge-by-rank, binary-search, scatter-store, masked-tail, intermediate-buffer, multi-row-tile]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  SEG: {values: [128, 256, 512, 1024], default: 256}
  ROW_TILE: {values: [128, 256, 512, 1024], default: 256}
  SORT_WARPS: {values: [1, 2, 4], default: 1}
  MERGE_BLOCK: {values: [128, 256, 512], default: 256}
requires: []
sources:
  - https://triton-lang.org/main/python-api/generated/triton.language.sort.html
  - https://stereopsis.com/radix.html
  - https://en.wikipedia.org/wiki/Merge_sort#Parallel_merge_sort
---
Stable row sort as a segmented bitonic sort in one warp followed by one merge-by-rank pass. Every
element becomes one int64 key (order-preserving int32 of the fp32 value in the high half, with -0.0
folded onto +0.0 and every NaN onto one NaN that sorts last as torch.sort does; the column in the low
half), so equal values order by column, which is the stable order, and one key sort carries the
permutation. Rows of at most SEG columns are sorted whole, ROW_TILE // width rows per program, and
both outputs decoded from the sorted keys. Longer rows are cut into SEG-column segments, each sorted
by its own program into an int64 scratch row padded to a power-of-two number of segments with the
largest key; a second kernel then gives every key its final column as the sum, over all segments
of its row, of the number of keys smaller than it (a branchless binary search of log2(SEG) + 1
probes per segment; keys are unique, so the sum is a permutation and the scattered stores never
collide). The sort runs in SORT_WARPS warps (default one), so tl.sort's cross-lane compare-exchange
stages are warp shuffles and never go through shared memory.

Why it was expected to beat torch.compile at decode-64x2048 and candidates-4096x1024: Nsight Compute
on the H200 showed packed_key_bitonic sorting whole rows with 128 threads per program: at
decode-64x2048, 32 programs of 128 threads took 100 us at 6 % occupancy (128 registers) against
torch.compile's radixSortKVInPlace at 29.5 us (3 launches); at candidates-4096x1024, 2048 programs
took 240 us, limited by shared memory (memory pipe 87 %, a 16-way bank conflict on the average
shared load and store, 89 % excess wavefronts), against 120 us. tl.sort crosses warps through shared
memory with 64-bit keys; one warp per segment removes that traffic, and splitting the 2048-wide
decode rows into eight segments gives 512 sorting programs instead of 32, with 36 instead of 66
compare-exchange stages each, the merge adding 72 mostly-L1 probes per element spread over 512
programs.
Measured by the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`, fp32, events
timing): the fastest of the three kernels at every shape, but short of that goal:
candidates-4096x1024 181 us (0.78x torch.compile's 141; packed_key_bitonic 243) and decode-64x2048
60.8 us (0.49x torch.compile's 29.7; packed_key_bitonic 104). The short-row shapes stay far ahead:
router-scores-16k-256 57.9 us (5.89x), experts-64k-64 37.8 us (11.3x).
Nsight Compute at decode-64x2048 (2026-12-04, `tools/loser_profile.py`,
docs/results/h200-2026-12-04-losers-2/kernel-patterns/sort_rows/decode-64x2048/): 16.7 us of device
time in two launches against torch.compile's 29.8 us in three. Ours: _sort_segments 5.3 us (64x8
programs of one warp, 45 registers), then _merge_rank 11.4 us (64x8 programs of 128 threads, 44
registers, occupancy 22.8 % of a possible 62.5 %, SM 24.6 % and DRAM 2.0 % busy; the summary calls
it latency-bound, with 68 % of its stalls long_scoreboard). torch.compile generates no kernel of its
own here: its inductor.log calls aten.sort.stable, which ran radixSortKVInPlace (25.1 us, 64
programs of 64 threads, 194 registers, occupancy 3.1 %, SM 4.8 %) and two small elementwise kernels
(3.0 and 1.8 us). On the device this kernel is the faster one; the harness's events time (60.8 us
against 29.7) counts about 44 us that are not kernel time, which is why the table shows a loss. The
covering-flush probe (2026-12-04, 21:20-21:35 UTC, `tools/timing_probe.py` at 7b74c41;
docs/results/h200-2026-12-04-timing/cover-rule/p3.json and probe.txt) timed it in one process, with
the flush before each call sized to cover the host's enqueue, at 18.4 us against torch.compile's
30.2 us (events, medians of three rounds at 1980 MHz: 1.64x), and 15.4 against 23.9 us by graph
replay. The host takes about 115 us to enqueue one call of this kernel (torch.compile 122 us); one
64 us flush pass alone left the GPU waiting (43.1 us, torch.compile 62.2), and in that process the
old rule (a flush pass, then a 100 us spin) just covered it (18.7 us). So the harness's 60.8 us is
most likely the GPU waiting on a slower host inside the harness, which the spin no longer covered
(why the host was slower there was not measured; docs/benchmarks.md, "The GPU hold replaced by a
covering flush"). The harness itself has not re-timed this shape under the new rule yet. Not yet profiled with Nsight Compute at
candidates-4096x1024: call 10's budget ran out before that shape
(docs/results/h200-2026-12-04-losers-2/lp-kp.txt), and the profile of that shape in
docs/results/h200-2026-12-04-losers is of packed_key_bitonic.
"""

import torch
import triton
import triton.language as tl

SEG = 256
ROW_TILE = 256
SORT_WARPS = 1
MERGE_BLOCK = 256

PAD_KEY = tl.constexpr(9223372036854775807)  # sorts after every real key (real keys have a column < 2**31 in the low half)


@triton.jit
def _to_key(x, cols):
    xf = x.to(tl.float32)
    xf = tl.where(xf == 0.0, 0.0, xf)                  # -0.0 ties with +0.0, as in torch.sort
    bits = xf.to(tl.int32, bitcast=True)
    bits = tl.where(xf != xf, 0x7FC00000, bits)         # every NaN is one value that sorts last
    ordered = tl.where(bits < 0, bits ^ 0x7FFFFFFF, bits)
    return (ordered.to(tl.int64) << 32) | cols.to(tl.int64)


@triton.jit
def _key_value(key):
    hi = (key >> 32).to(tl.int32)
    return tl.where(hi < 0, hi ^ 0x7FFFFFFF, hi).to(tl.float32, bitcast=True)


@triton.jit
def _sort_segments(x_ptr, val_ptr, idx_ptr, key_ptr, n_rows, n_cols, key_stride,
                   ROWS: tl.constexpr, SEG: tl.constexpr, FINAL: tl.constexpr):
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    j = tl.arange(0, SEG)
    cols = tl.program_id(1) * SEG + j
    row_ok = rows[:, None] < n_rows
    mask = row_ok & (cols[None, :] < n_cols)
    x = tl.load(x_ptr + rows[:, None].to(tl.int64) * n_cols + cols[None, :], mask=mask, other=0.0)
    key = tl.where(mask, _to_key(x, cols[None, :]), PAD_KEY)
    key = tl.sort(key, dim=1)
    if FINAL:  # the segment is the whole row: sorted slot j is output column j
        offs = rows[:, None].to(tl.int64) * n_cols + j[None, :]
        keep = row_ok & (j[None, :] < n_cols)
        tl.store(val_ptr + offs, _key_value(key).to(val_ptr.dtype.element_ty), mask=keep)
        tl.store(idx_ptr + offs, key & 0xFFFFFFFF, mask=keep)
    else:
        tl.store(key_ptr + rows[:, None].to(tl.int64) * key_stride + cols[None, :], key,
                 mask=row_ok & (cols[None, :] < key_stride))


@triton.jit
def _merge_rank(key_ptr, val_ptr, idx_ptr, n_cols, key_stride,
                SEG: tl.constexpr, LOG_SEG: tl.constexpr, NSEG: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    p = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    base = key_ptr + row * key_stride
    key = tl.load(base + p)
    starts = (tl.arange(0, NSEG) * SEG)[None, :]
    k2 = key[:, None]
    pos = tl.zeros([BLOCK, NSEG], dtype=tl.int32)
    for s in tl.static_range(LOG_SEG):           # lower bound of key in every sorted segment
        half = SEG >> (s + 1)                      # folded: s is a static_range constant
        probe = tl.load(base + starts + pos + (half - 1))
        pos += tl.where(probe < k2, half, 0)
    last = tl.load(base + starts + pos)
    pos += (last < k2).to(tl.int32)
    rank = tl.sum(pos, axis=1)                     # keys of the row smaller than this one
    offs = row * n_cols + rank
    keep = key != PAD_KEY
    tl.store(val_ptr + offs, _key_value(key).to(val_ptr.dtype.element_ty), mask=keep)
    tl.store(idx_ptr + offs, key & 0xFFFFFFFF, mask=keep)


class ModelNew(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        values = torch.empty_like(x2)
        indices = torch.empty((n_rows, n_cols), dtype=torch.int64, device=x.device)
        if n_rows == 0 or n_cols == 0:
            return values.view(x.shape), indices.view(x.shape)
        width = triton.next_power_of_2(n_cols)
        if width <= SEG:  # one pass: whole rows, several per program
            rows = max(1, ROW_TILE // width)
            _sort_segments[(triton.cdiv(n_rows, rows), 1)](
                x2, values, indices, values, n_rows, n_cols, 0, ROWS=rows, SEG=width, FINAL=True,
                num_warps=SORT_WARPS)
        else:  # sorted SEG-column segments, then each key's rank across the row's segments
            nseg = triton.next_power_of_2(triton.cdiv(n_cols, SEG))
            key_stride = nseg * SEG
            keys = torch.empty((n_rows, key_stride), dtype=torch.int64, device=x.device)
            _sort_segments[(n_rows, nseg)](
                x2, values, indices, keys, n_rows, n_cols, key_stride, ROWS=1, SEG=SEG, FINAL=False,
                num_warps=SORT_WARPS)
            block = min(MERGE_BLOCK, key_stride)
            _merge_rank[(n_rows, key_stride // block)](
                keys, values, indices, n_cols, key_stride, SEG=SEG, LOG_SEG=SEG.bit_length() - 1, NSEG=nseg,
                BLOCK=block, num_warps=4)
        return values.view(x.shape), indices.view(x.shape)
