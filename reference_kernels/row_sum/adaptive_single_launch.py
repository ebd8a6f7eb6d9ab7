"""
---
op: row_sum
strategy: shape-dispatched-single-launch
techniques: [multi-row-per-program, split-reduction, last-program-finalize, atomic-counter, single-launch, deterministic, fp32-accumulate, masked-tail, eviction-hints]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  TILE: {values: [1024, 2048, 4096, 8192], default: 4096}
  SPLIT_CHUNK: {values: [1024, 2048, 4096, 8192], default: 4096}
  NUM_WARPS: {values: [4, 8, 16, 32], default: 16}
  SHORT_TILE: {values: [512, 1024, 2048, 4096], default: 2048}
  SHORT_WARPS: {values: [2, 4, 8], default: 8}
  EVICT_FIRST: {values: [0, 1], default: 0}
requires: []
sources:
  - https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf
  - https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#memory-fence-functions
---
One launch at every shape, with the layout picked from the shape. Many rows (16384 x 4096,
65536 x 128, 1000 x 5120) use a [ROWS, BLOCK_N] tile per program with ROWS x BLOCK_N = TILE
elements (SHORT_TILE for rows under 1024 columns): a whole 4096-wide row in one step with 16
warps, or 16 rows of 128 at once with 8 warps. That is thousands of programs and no second pass.
Few long rows (32 or 1 vocab rows of 128256, 7 x 30001) use rows x chunks programs. Each reduces
SPLIT_CHUNK columns (half that when a single row would leave most SMs idle) and stores one fp32
partial. The program that
then bumps the row's arrival counter (acq_rel atomic) to n_chunks - 1 is the last one: it reads
the row's partials from L2 in chunk order, writes the sum and resets the counter. So the result is
deterministic and there is no second kernel. The counters live in a small int32 buffer the module
zeroes once per device, and the last program leaves them at zero.
Not profiled with Nsight. On the H200 split_row (two kernels) lost at 32 x 128256 (7.95 us against
torch.compile's 7.43, CUDA-graph timing) and 1 x 128256 (4.95 against 4.68), and blocked_loop lost
62.14 to 61.54 us at 16384 x 4096. Measured by the harness on one H200 (2026-12-04,
`tools/suite_bench.py --kernels`, fp32): the fastest of the four kernels at every shape, though by
0.1 % or less at 16384 x 4096 (blocked_loop) and 32 x 128256 (split_row): 16384 x 4096 62.1 us
(events, 0.99x torch.compile: level), 4096 x 8192 33.5 (events, 1.10x), 32 x 128256 7.94 (graph,
0.94x; torch.compile 7.43), 1 x 128256 4.19 (graph, 1.12x), 65536 x 128 11.2 (graph, 1.98x). So it
still trails torch.compile at 32 x 128256. An earlier sweep timed the held-out 1000 x 5120 at 7.19
us and 7 x 30001 at 3.44 (torch.compile 8.19 and 9.44 by graph replay).
It has not been profiled with Nsight Compute at 32 x 128256 or 16384 x 4096, the two shapes where it
trails, yet.
The arrival counters live on the module instance, one buffer per device, and every launch leaves
them at zero; two launches of the same instance running at once on different streams would share
them, so one instance serves one stream at a time.
On an H100 SXM (2026-12-06, session 37, docs/results/2026-12-06-s37/suite-full-h100/) short-rows-64k (65536 rows of 128 columns) took 13.40 us against torch.compile's 12.90 (graph,
0.96x) and hidden-4k-rows-8192 46.08 against 45.82 (0.99x); the other three shapes were ahead.
Built offline for sm_90 (tools/offline_compile.py, docs/results/2026-12-06-s37/offline-compile/losers.md), the
128-column tile ([32, 128] on 4 warps) takes 88 registers a thread, so five programs (20 warps)
fit an SM; the 4096-column rows take 32. Not profiled with Nsight yet; TILE=2048 and 1024 at the
128-column shape are the next probe.
Session 39 read torch.compile's choice for 65536 x 128 from Inductor's autotune record on the H100: a
persistent reduction of 32 whole rows a program (4096 elements, unmasked) on 2 warps.
tools/harness_probe.py there (interleaved graph timing): the [32, 128] tile on 4 warps 13.39 us against
13.51; SHORT_TILE=2048 on 8 warps 12.89 against 12.89; 1024 on 8 warps 13.26 against 12.89; 512 on
4 or 2 warps 13.01 against 12.89. Rows under 1024 columns now take SHORT_TILE=2048 on SHORT_WARPS=8;
TILE still sets the wide rows' step.
Nsight Compute on an H100 (session 48, docs/results/2026-12-07-s48/s48a/lp/row_sum/): at
hidden-4k-rows-8192 (0.97x in the table) 47.49 us at 85.9 % of DRAM bandwidth against torch.compile's
46.21 at 88.0 %, on the same bytes and occupancy (95 against 94 %, 32 against 26 registers).
Inductor's kernel is one row a program on 16 warps with evict_first loads; this one runs a looped
row on 8 warps with no eviction hint. EVICT_FIRST (default 0) and NUM_WARPS 32 (16 warps on a
looped row) are the next probe (docs/results/2026-12-07-s48/scripts/call_s48c.sh). hidden-16k-rows
and short-rows-64k were level on the device (88.51 against 87.23 us, 14.05 against 13.92).
"""

import torch
import triton
import triton.language as tl

TILE = 4096
SPLIT_CHUNK = 4096
NUM_WARPS = 16
SHORT_TILE = 2048
SHORT_WARPS = 8
# EVICT_FIRST 1: the tile path's loads stream past L2 (evict_first), as torch.compile's do
EVICT_FIRST = 0
CPU_SMS = 132  # off CUDA (the interpreter) the split is sized as for an H100/H200
SPLIT_BELOW_ROWS = 264  # fewer rows than two per SM: split each row across programs
MAX_BLOCK_N = 4096  # widest column step of the tile path

_SM_COUNTS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return CPU_SMS
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


@triton.jit
def _row_sum_tile(x_ptr, y_ptr, n_rows, n_cols, x_stride, ROWS: tl.constexpr, BLOCK_N: tl.constexpr,
                  EVICT: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_mask = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([ROWS, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        idx = start + cols
        acc += tl.load(x_ptr + rows[:, None] * x_stride + idx[None, :],
                       mask=row_mask[:, None] & (idx < n_cols)[None, :], other=0.0,
                       eviction_policy=EVICT).to(tl.float32)
    tl.store(y_ptr + rows, tl.sum(acc, axis=1).to(y_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def _row_sum_split(x_ptr, ws_ptr, cnt_ptr, y_ptr, n_cols, x_stride, n_chunks, CHUNK: tl.constexpr,
                   BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr, EVICT: tl.constexpr):
    chunk = tl.program_id(0)
    row = tl.program_id(1).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    acc = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, CHUNK, BLOCK_N):
        idx = chunk * CHUNK + off + cols
        acc += tl.load(x_ptr + row * x_stride + idx, mask=idx < n_cols, other=0.0,
                       eviction_policy=EVICT).to(tl.float32)
    tl.store(ws_ptr + row * n_chunks + chunk, tl.sum(acc, axis=0))
    tl.debug_barrier()
    arrived = tl.atomic_add(cnt_ptr + row, 1, sem="acq_rel", scope="gpu")  # release partial, acquire others
    is_last = arrived == n_chunks - 1
    offs = tl.arange(0, BLOCK_C)
    tot = tl.zeros([BLOCK_C], dtype=tl.float32)
    for c0 in range(0, n_chunks, BLOCK_C):
        c = c0 + offs
        tot += tl.load(ws_ptr + row * n_chunks + c, mask=(c < n_chunks) & is_last, other=0.0, cache_modifier=".cg")
    tl.store(y_ptr + row, tl.sum(tot, axis=0).to(y_ptr.dtype.element_ty), mask=is_last)
    tl.store(cnt_ptr + row, 0, mask=is_last)  # ready for the next launch


def launch(x2, y, counters, chunk, rows_per_prog, block_n, num_warps, evict="", num_stages=3):
    """chunk > 0: each row split into chunks over programs, the last to finish a row sums its
    partials (COUNTERS: one int32 per row, at zero); chunk == 0: ROWS_PER_PROG whole rows a program."""
    n_rows, n_cols = x2.shape
    if chunk:
        n_chunks = triton.cdiv(n_cols, chunk)
        ws = torch.empty((n_rows, n_chunks), dtype=torch.float32, device=x2.device)
        _row_sum_split[(n_chunks, n_rows)](x2, ws, counters, y, n_cols, x2.stride(0), n_chunks, CHUNK=chunk,
                                  BLOCK_N=min(block_n, chunk), BLOCK_C=min(1024, triton.next_power_of_2(n_chunks)),
                                  EVICT=evict, num_warps=num_warps)
    else:
        _row_sum_tile[(triton.cdiv(n_rows, rows_per_prog),)](x2, y, n_rows, n_cols, x2.stride(0), ROWS=rows_per_prog,
                                                    BLOCK_N=block_n, EVICT=evict, num_warps=num_warps,
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

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        y = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        if n_rows == 0:
            return y.view(x.shape[:-1])
        if n_cols == 0:
            return torch.zeros_like(y).view(x.shape[:-1])  # empty rows: zero (no kernel needed)
        if n_rows < min(SPLIT_BELOW_ROWS, 2 * _sm_count(x.device)) and n_cols > SPLIT_CHUNK:
            # few long rows: spread each row over programs; one row alone gets half-size chunks
            chunk = SPLIT_CHUNK // 2 if n_rows * triton.cdiv(n_cols, SPLIT_CHUNK) < _sm_count(x.device) else SPLIT_CHUNK
            launch(x2, y, self.counters(x.device, n_rows), chunk, 1, 1024, 4)
        else:
            block_n = min(triton.next_power_of_2(n_cols), MAX_BLOCK_N, TILE)
            rows_per_prog = max(1, TILE // block_n)
            if block_n < 1024:  # short rows: a [ROWS, BLOCK_N] tile of SHORT_TILE elements
                rows_per_prog = max(1, SHORT_TILE // block_n)
                warps = SHORT_WARPS
            else:  # a whole row in one step takes all warps, a looped row half of them
                warps = NUM_WARPS if n_cols <= block_n else max(4, NUM_WARPS // 2)
            launch(x2, y, None, 0, rows_per_prog, block_n, warps, "evict_first" if EVICT_FIRST else "")
        return y.view(x.shape[:-1])
