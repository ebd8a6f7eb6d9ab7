"""
---
op: row_max_argmax
strategy: packed-value-index-key-max
techniques: [packed-64bit-key, order-preserving-float-bits, tie-break-lowest-index, multi-row-per-program, 2d-tile, split-reduction, partial-results-workspace, atomic-counter, single-launch, nan-propagation, masked-tail, eviction-hints]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  TILE: {values: [2048, 4096, 8192], default: 4096}
  SPLIT_CHUNK: {values: [2048, 4096, 8192], default: 4096}
  NUM_WARPS: {values: [4, 8, 16], default: 16}
  NARROW_WARPS: {values: [1, 2, 4, 8], default: 4}
  SPLIT_WARPS: {values: [4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.max.html
  - https://en.wikipedia.org/wiki/IEEE_754#Total-ordering_predicate
  - https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#memory-consistency-model
---
The (value, index) pair reduction as a single integer max. Each element becomes one int64 key:
the high 32 bits are the value's float bits made order-preserving as a signed integer (negative
values get their 31 magnitude bits flipped, -0.0 is first folded into +0.0, every NaN becomes
0x7FFFFFFF, above +inf), the low 32 bits are 0x7FFFFFFF minus the column. The largest key is then
the largest value, a NaN where the row has one (torch.max's rule), and among equal values the
lowest column (the tie rule), so the running update is one tl.maximum per element and the closing
step one max reduction per row. adaptive_single_launch, the same layouts with separate value and
index lanes, needs a compare and two selects per element and three cross-lane reductions (any NaN,
max, lowest holding column) per row. The key decodes back exactly: the high half to the value, the
low half to the column.

Layouts (as adaptive_single_launch, whose H100 figures led here):
- many rows, or rows no longer than one chunk: [ROWS, BLOCK_N] tiles with ROWS x BLOCK_N = TILE,
  64-column expert rows 64 to a program on NARROW_WARPS warps (rows narrower than 1024 columns),
  wider rows on NUM_WARPS warps, looping over BLOCK_N-column steps past MAX_BLOCK_N;
- few long rows (decode vocab rows): (chunk, row) programs, each storing its chunk's best key in a
  workspace; the program whose acquire-release increment of the row's arrival counter returns
  n_chunks - 1 takes the max of the row's keys, writes the result and puts the counter back to
  zero, so one launch and no host-side reset.

Why: on an H100 SXM (2026-12-06, session 37, docs/results/2026-12-06-s37/suite-full-h100/) the
operator's best kernel at experts-64k-rows-64 (adaptive_single_launch) took 11.64 us against
torch.compile's 9.89 (0.85x). That is 16 MB in about 10 us, a third of the card's copy bandwidth,
which suggests (not profiled yet) that both sides are bound by the per-row pair reduction, not by memory.
What the compiler made of the idea, offline (tools/offline_compile.py: Triton 3.7.1 for sm_90 with
the launch's own specialization, no GPU; docs/results/2026-12-06-s37/offline-compile/): at that
shape's [64, 64] tile on 4 warps this kernel's PTX has 988 instructions and 64 shuffles against
adaptive_single_launch's 1147 and 96, at 127 registers against 123 (four programs, 16 warps, per
SM). NARROW_WARPS=8 takes 76 registers and 16 take 47: three and two programs, so 24 and 32 warps
resident. Fewer instructions is not yet a faster
kernel: checked in Triton's interpreter (the operator's CPU shapes;
tests/reference_kernels/test_row_max_argmax_edges.py: ties across chunks, NaN with either sign,
-inf rows, -0.0, both layouts, three parameter points, two calls each) and built offline for
sm_90.
On an H100 SXM (2026-12-06, session 38, fp32, GPU correctness passed with the edge tests;
`tools/suite_bench.py --kernels` joined to session 37's baselines, docs/results/2026-12-06-s38/):
the fewer instructions bought nothing at the narrow shape, experts-64k-rows-64 11.65 us against
torch.compile's 9.89 (graph, 0.85x, the same as adaptive_single_launch). The decode split gained a
little: vocab-rows-32 11.15 against 51.14 (graph, 4.59x; adaptive 12.14), vocab-rows-256 49.54
against 100.61 (2.03x). hidden-16k-rows took 133.06 against 116.32 (0.87x; adaptive 114.74).
"""

import torch
import triton
import triton.language as tl

TILE = 4096
SPLIT_CHUNK = 4096
NUM_WARPS = 16
NARROW_WARPS = 4
SPLIT_WARPS = 4
CPU_SMS = 132  # off CUDA (the interpreter) the split is sized as for an H100/H200
SPLIT_BELOW_ROWS = 264  # fewer rows than two per SM: split each long row across programs
MAX_BLOCK_N = 4096  # widest column step of a tile
LOWEST_KEY: tl.constexpr = tl.constexpr(-(2**63))  # below every element's key: masked lanes and empty workspace slots

_SM_COUNTS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return CPU_SMS
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


@triton.jit
def _key(x, col):
    """The element's int64 key: order-preserving float bits above, 0x7FFFFFFF - column below."""
    x = tl.where(x == 0.0, 0.0, x)  # -0.0 ties with +0.0, as torch.max compares them
    bits = x.to(tl.int32, bitcast=True)
    ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF)  # negative values: flip the magnitude bits
    ordered = tl.where(x != x, 0x7FFFFFFF, ordered)  # every NaN above +inf
    return (ordered.to(tl.int64) << 32) | (0x7FFFFFFF - col).to(tl.int64)


@triton.jit
def _store_key(key, val_ptr, idx_ptr, offs, mask):
    """Decode KEY into the row's value (its input dtype) and int64 column, and store both."""
    ordered = (key >> 32).to(tl.int32)
    bits = ordered ^ ((ordered >> 31) & 0x7FFFFFFF)
    val = bits.to(tl.float32, bitcast=True)
    tl.store(val_ptr + offs, val.to(val_ptr.dtype.element_ty), mask=mask)
    tl.store(idx_ptr + offs, 0x7FFFFFFF - (key & 0x7FFFFFFF), mask=mask)


@triton.jit
def _rows_tile(x_ptr, val_ptr, idx_ptr, n_rows, n_cols, x_stride, ROWS: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    cols = tl.arange(0, BLOCK_N)
    best = tl.full([ROWS, BLOCK_N], LOWEST_KEY, dtype=tl.int64)
    for start in range(0, n_cols, BLOCK_N):
        c = start + cols
        m = row_ok[:, None] & (c < n_cols)[None, :]
        x = tl.load(x_ptr + rows[:, None] * x_stride + c[None, :], mask=m, other=0.0,
                    eviction_policy="evict_first").to(tl.float32)
        best = tl.maximum(best, tl.where(m, _key(x, c[None, :]), LOWEST_KEY))
    _store_key(tl.max(best, axis=1), val_ptr, idx_ptr, rows, row_ok)


@triton.jit
def _rows_split(x_ptr, ws_ptr, cnt_ptr, val_ptr, idx_ptr, n_cols, x_stride, n_chunks,
                CHUNK: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_C: tl.constexpr):
    chunk = tl.program_id(0)
    row = tl.program_id(1).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    best = tl.full([BLOCK_N], LOWEST_KEY, dtype=tl.int64)
    for off in range(0, CHUNK, BLOCK_N):
        c = chunk * CHUNK + off + cols
        x = tl.load(x_ptr + row * x_stride + c, mask=c < n_cols, other=0.0,
                    eviction_policy="evict_first").to(tl.float32)
        best = tl.maximum(best, tl.where(c < n_cols, _key(x, c), LOWEST_KEY))
    tl.store(ws_ptr + row * n_chunks + chunk, tl.max(best, axis=0))
    tl.debug_barrier()  # every thread's stores are issued before the releasing increment
    arrived = tl.atomic_add(cnt_ptr + row, 1, sem="acq_rel", scope="gpu")
    if arrived == n_chunks - 1:  # the row's last program: every other key is published
        part = tl.full([BLOCK_C], LOWEST_KEY, dtype=tl.int64)
        offs = tl.arange(0, BLOCK_C)
        for c0 in range(0, n_chunks, BLOCK_C):
            c = c0 + offs
            part = tl.maximum(part, tl.load(ws_ptr + row * n_chunks + c, mask=c < n_chunks, other=LOWEST_KEY,
                                            cache_modifier=".cg"))
        _store_key(tl.max(part, axis=0), val_ptr, idx_ptr, row, True)
        tl.store(cnt_ptr + row, 0)  # ready for the next launch


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._counters: dict = {}  # per device: int32 arrival counters, at zero between launches

    def counters(self, device: torch.device, n: int) -> torch.Tensor:
        key = str(device)
        cnt = self._counters.get(key)
        if cnt is None or cnt.numel() < n:
            cnt = torch.zeros(max(n, 1024), dtype=torch.int32, device=device)
            self._counters[key] = cnt
        return cnt

    def forward(self, x: torch.Tensor) -> tuple:
        n_cols = x.shape[-1]
        x2 = x.reshape(-1, n_cols).contiguous()
        n_rows = x2.shape[0]
        values = torch.empty(n_rows, dtype=x.dtype, device=x.device)
        indices = torch.empty(n_rows, dtype=torch.int64, device=x.device)
        if n_rows == 0:
            return values.view(x.shape[:-1]), indices.view(x.shape[:-1])
        if n_cols == 0:
            raise IndexError("row_max_argmax: max of an empty row (n_cols == 0) is undefined, as in torch.max")
        if n_cols > 2**31 - 1:
            raise ValueError(f"row_max_argmax/packed_key_tiles: {n_cols} columns do not fit the key's 31-bit column")
        sms = _sm_count(x.device)
        if n_rows < min(SPLIT_BELOW_ROWS, 2 * sms) and n_cols > SPLIT_CHUNK:
            chunk = SPLIT_CHUNK // 2 if n_rows * triton.cdiv(n_cols, SPLIT_CHUNK) < sms else SPLIT_CHUNK
            n_chunks = triton.cdiv(n_cols, chunk)
            ws = torch.empty((n_rows, n_chunks), dtype=torch.int64, device=x.device)
            _rows_split[(n_chunks, n_rows)](
                x2, ws, self.counters(x.device, n_rows), values, indices, n_cols, x2.stride(0), n_chunks,
                CHUNK=chunk, BLOCK_N=min(1024, chunk), BLOCK_C=min(1024, triton.next_power_of_2(n_chunks)),
                num_warps=SPLIT_WARPS)
        else:
            block_n = min(triton.next_power_of_2(n_cols), MAX_BLOCK_N, TILE)
            rows = max(1, TILE // block_n)
            warps = NARROW_WARPS if block_n < 1024 else NUM_WARPS
            _rows_tile[(triton.cdiv(n_rows, rows),)](x2, values, indices, n_rows, n_cols, x2.stride(0),
                                                     ROWS=rows, BLOCK_N=block_n, num_warps=warps)
        return values.view(x.shape[:-1]), indices.view(x.shape[:-1])
