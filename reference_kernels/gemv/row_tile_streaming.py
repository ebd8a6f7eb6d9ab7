"""
---
op: gemv
strategy: row-tile-streaming-with-split-fallback
techniques: [row-block, k-loop, vector-accumulator, streaming-eviction, split-k, last-program-finalize, atomic-counter, single-launch, fp32-accumulate, coalesced-rows, masked-tail, eviction-hints, last-arriver-merge]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_K: {values: [256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [2, 4, 8, 16], default: 8}
requires: []
sources:
  - https://docs.nvidia.com/cuda/cublas/index.html#cublas-t-gemv
  - https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#memory-fence-functions
---
Program i owns BLOCK_N rows of w [n, k] (4 by default) and walks k in BLOCK_K = 1024 steps. Each
step loads a [BLOCK_N, BLOCK_K] slab, coalesced along k, with evict_first: the weight is streamed
once and must not push x out of L2. The x slice is loaded with evict_last. Products build up in a
[BLOCK_N, BLOCK_K] fp32 tile, reduced along k once at the end. With 8 warps each thread issues
four 16-byte loads a step, 16 KB per program in flight. When the row blocks alone cannot fill the GPU (fewer than
two per SM, e.g. the held-out 77 x 30001) k is split too, in SPLIT_CHUNK_K pieces. Then every
program stores fp32 partials, bumps its row block's arrival counter (acq_rel atomic), and the last
one adds the partials in chunk order and writes y, so that path is one deterministic launch too.
Not profiled with Nsight. On the H200 row_block (8 rows x 512, 4 warps) lost 57.38 us to
torch.compile's 55.04 at 14336 x 4096. An earlier config sweep there (the harness's timer,
torch.compile timed in the same process, not the suite) found no configuration that wins: 4 x 1024
with 4 warps 57.1-57.3 us, 8 warps 58.0, 2 x 1024 57.6, 1 x 4096 with 16 warps 62.9, against
54.4-54.7; it timed the held-out 1000 x 1000 at 3.44 us (torch.compile 5.06) and 77 x 30001 at 6.44
(9.94). Measured by the harness on one H200 (2026-12-04, `tools/suite_bench.py --kernels`, fp32,
events timing) with the default 4 x 1024, 8 warps: 14336 x 4096 57.3 us, still 0.96x torch.compile
(55.0); 4096 x 14336 59.4 (1.16x); 4096 x 4096 21.3 (1.28x); lm head 128256 x 4096 461 (1.42x). It
is the fastest of the three kernels at the first three shapes, by 2 % or less over row_block, and
under 1 % behind row_block (457 us) at the lm head.
The covering-flush probe (2026-12-04, 21:20-21:35 UTC, `tools/timing_probe.py` at 7b74c41;
docs/results/h200-2026-12-04-timing/cover-rule/p4.json and probe.txt) shows the loss at 14336 x 4096
is the kernel's, not the timer's: in one process, medians of three rounds at 1980 MHz, 57.63 us
against torch.compile's 54.51 with the flush covering the host's enqueue (events), 55.72 against
52.72 by graph replay, and 57.97 and 57.73 against 54.78 and 54.40 with one flush pass or the old
100 us spin: about 0.95x every way (eager 64.06 us). Neither this kernel nor row_block has been
profiled with Nsight Compute at that shape yet.
The arrival counters live on the module instance, one buffer per device, and every launch leaves
them at zero; two launches of the same instance running at once on different streams would share
them, so one instance serves one stream at a time.
Nsight Compute on an H100 (session 48, `tools/loser_profile.py`, docs/results/2026-12-07-s48/s48a/lp/
gemv/): level on bytes (1.01-1.04x the compulsory traffic on both sides), behind on how full the SMs
are. At 4096 x 14336 this kernel ran 83.30 us at 84.9 % of DRAM bandwidth against torch.compile's
77.89 us at 90.8 %; 14336 x 4096 79.01 against 77.06 (89.5 against 91.7 %); the lm head 672.61
against 657.06 (93.3 against 95.5 %). Its 40 registers a thread fit 6 programs of 8 warps an SM
(68-74 % achieved occupancy), so at 4096 rows its 1024 programs fill 1.3 waves. torch.compile's
kernel is an Inductor reduction of one row a program on 16 warps at 27-32 registers (91-96 %
occupancy), the loads streamed with evict_first as here. One row a program on 8 or 16 warps builds
at 32 registers for sm_90 (8 or 4 programs an SM: full occupancy); those points (BLOCK_N 1,
BLOCK_K 2048) are the next probe against cuBLAS (docs/results/2026-12-07-s48/scripts/call_s48c.sh).
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 4
BLOCK_K = 1024
NUM_WARPS = 8
CPU_SMS = 132  # off CUDA (the interpreter) the split is sized as for an H100/H200
SPLIT_CHUNK_K = 2048  # k per program when the row blocks alone cannot fill the GPU

_SM_COUNTS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return CPU_SMS
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


@triton.jit
def _gemv_rows(w_ptr, x_ptr, ws_ptr, cnt_ptr, y_ptr, n, k, n_chunks, chunk_k, BLOCK_N: tl.constexpr,
               BLOCK_K: tl.constexpr, BLOCK_R: tl.constexpr, SPLIT: tl.constexpr, EVICT: tl.constexpr):
    row_block = tl.program_id(0)
    chunk = tl.program_id(1)
    rows = row_block * BLOCK_N + tl.arange(0, BLOCK_N)
    row_mask = rows < n
    ks = tl.arange(0, BLOCK_K)
    k_first = chunk * chunk_k
    k_last = tl.minimum(k_first + chunk_k, k)
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    for k0 in range(k_first, k_last, BLOCK_K):
        kk = k0 + ks
        k_mask = kk < k_last
        xv = tl.load(x_ptr + kk, mask=k_mask, other=0.0, eviction_policy="evict_last").to(tl.float32)
        wv = tl.load(w_ptr + rows[:, None].to(tl.int64) * k + kk[None, :], mask=row_mask[:, None] & k_mask[None, :],
                     other=0.0, eviction_policy=EVICT).to(tl.float32)
        acc += wv * xv[None, :]
    part = tl.sum(acc, axis=1)
    if SPLIT:
        tl.store(ws_ptr + chunk.to(tl.int64) * n + rows, part, mask=row_mask)
        tl.debug_barrier()  # every thread's partials are written before the counter moves
        arrived = tl.atomic_add(cnt_ptr + row_block, 1, sem="acq_rel", scope="gpu")
        is_last = arrived == n_chunks - 1
        rr = tl.arange(0, BLOCK_R)
        tot = tl.zeros([BLOCK_R, BLOCK_N], dtype=tl.float32)
        for c0 in range(0, n_chunks, BLOCK_R):
            c = c0 + rr
            tot += tl.load(ws_ptr + c[:, None].to(tl.int64) * n + rows[None, :],
                           mask=((c < n_chunks)[:, None] & row_mask[None, :]) & is_last, other=0.0,
                           cache_modifier=".cg")
        tl.store(y_ptr + rows, tl.sum(tot, axis=0).to(y_ptr.dtype.element_ty), mask=row_mask & is_last)
        tl.store(cnt_ptr + row_block, 0, mask=is_last)  # ready for the next launch
    else:
        tl.store(y_ptr + rows, part.to(y_ptr.dtype.element_ty), mask=row_mask)


def launch(w, x, y, counters, block_n, block_k, num_warps, chunk_k=None, evict="evict_first", num_stages=3):
    n, k = w.shape
    chunk_k = k if chunk_k is None else max(block_k, chunk_k // block_k * block_k)
    n_chunks = triton.cdiv(k, chunk_k)
    split = n_chunks > 1
    ws = torch.empty((n_chunks, n) if split else (1,), dtype=torch.float32, device=w.device)
    _gemv_rows[(triton.cdiv(n, block_n), n_chunks)](w, x, ws, counters, y, n, k, n_chunks, chunk_k, BLOCK_N=block_n,
                                                     BLOCK_K=block_k, BLOCK_R=min(16, triton.next_power_of_2(n_chunks)),
                                                     SPLIT=split, EVICT=evict, num_warps=num_warps,
                                                     num_stages=num_stages)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._counters: dict = {}  # per device: int32 arrival counters, kept at zero between launches

    def counters(self, device: torch.device, n: int) -> torch.Tensor:
        key = str(device)
        cnt = self._counters.get(key)
        if cnt is None or cnt.numel() < n:
            cnt = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)
            self._counters[key] = cnt
        return cnt

    def forward(self, w: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        w = w.contiguous()
        x = x.contiguous()
        n, k = w.shape
        y = torch.empty(n, dtype=w.dtype, device=w.device)
        if n == 0:
            return y
        if k == 0:
            return torch.zeros_like(y)
        row_blocks = triton.cdiv(n, BLOCK_N)
        chunk_k = None
        if row_blocks < 2 * _sm_count(w.device) and k > 2 * SPLIT_CHUNK_K:  # too few programs: split k too
            chunk_k = SPLIT_CHUNK_K
        launch(w, x, y, self.counters(w.device, row_blocks), BLOCK_N, BLOCK_K, NUM_WARPS, chunk_k)
        return y
