"""
---
op: layernorm
strategy: exact-fit-vector-chunks
techniques: [whole-row-in-registers, exact-fit-chunks, multi-row-per-program, eviction-hints, fp32-accumulate, two-step-variance, masked-tail, unmasked-even-path, warps-from-row-length]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
  ROWS: {values: [1, 2, 4], default: 1}
requires: []
sources:
  - https://triton-lang.org/main/getting-started/tutorials/05-layer-norm.html
  - https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities (sm_90: 64K registers, 64 warps, 32 blocks per SM)
---
Written for the prefill rows whose hidden size is not a power of two. Measured on the H200
2026-12-04 by the harness (best kernel per shape, events timing, SOL at 4.8 TB/s): gptj-6b-prefill-16k
(hidden 4096) one_row_registers 67.6 us, SOL 0.83; gpt-neox-20b-prefill-4k (6144) one_row_registers
30.6 us, 0.68; falcon-7b-prefill-8k (4544) one_row_registers 49.6 us, 0.63; clip-vit-l14-336-batch-32
(18464 x 1024) latency_rows 21.8 us, 0.72. The target (issue 9) is SOL >= 0.85 at every memory-bound
prefill shape.

What an offline sm_90 compile of one_row_registers shows (Triton 3.7.1 ASTSource, pointers and the
row length marked divisible by 16 as the launcher does, registers from the bundled cuobjdump
--dump-resource-usage): at hidden 4544 and 6144 (BLOCK 8192, 8 warps) 64 registers, no local
memory, 16-byte loads and stores (LDG.E.128 x12: four per thread for each of x, weight, bias;
STG.E.128 x4); at hidden 4096 (BLOCK 4096) 40 registers, no local memory, LDG.E.128 x6. So it neither
spills nor loses vector width; the cost of the padding is occupancy. Each thread holds 32 lanes of
the 8192 tile, about 45% (4544) or 25% (6144) of them masked, and 64 x 256 = 16384 registers per row
leave room for 4 resident rows per SM (4544: 36 KB of x, 6144: 48 KB), against 6 rows (48 KB) at
hidden 4096. Among the three one-row-at-a-time kernels of that run (one_row_registers,
latency_rows, segmented_row) SOL roughly followed the rows resident per SM that their compiled
registers and warps allow: at 4096 6 rows 0.83, 4 rows 0.70 and 0.69; at 6144 4 rows 0.68, 3 rows
0.48, 2 rows 0.50; at 4544 4 rows 0.63, 2 rows 0.46 and 0.32. A reading of those numbers, not a
profile.

Design. A 2-D [CHUNKS, CHUNK] register tile does not remove the padding in Triton, whose tile
dimensions are powers of two: 4544 = 71 x 64 pads to [128, 64] = 8192 and 6144 = 3 x 2048 to
[4, 2048] = 8192. Instead the row is NCH separate [ROWS, CHUNK] tiles held in a tuple (unrolled with
tl.static_range), CHUNK = 32 x warps x (16 bytes / element size), one 16-byte vector per thread per
chunk, NCH = cdiv(hidden, CHUNK); only the last chunk can run past the row and only it is masked.
All loads of x are issued before any arithmetic (evict_first). The chunks are added lane by lane
before one tl.sum, so the mean and the centred variance (two-step, fp32) cost one cross-warp
reduction each whatever NCH is. Weight and bias are loaded chunk by chunk only after the statistics
(evict_last), each load serving the ROWS rows of the tile. Fewer warps per row than one_row_registers
(4 instead of 8 by default): at 4544 a row then costs 64 x 128 = 8192 registers instead of 16384. Warps = min(NUM_WARPS, next_pow2(cdiv(hidden, 32 x vector))), doubled
while a thread would hold more than 192 elements of its rows. ROWS rows per program share the weight
and bias registers; when ROWS does not divide the row count the rows are masked, else not.

Config per suite shape in bf16 at the defaults (NUM_WARPS 4, ROWS 1), from the forward:
gptj-6b-prefill-16k and gptj-6b-decode-256 (4096): 4 warps, 4 chunks of 1024, none masked;
gpt-neox-20b-prefill-4k (6144): 4 warps, 6 x 1024, none masked; falcon-7b-prefill-8k (4544): 4 warps,
5 x 1024 = 5120 (11% masked, against 45%); clip-vit-l14-336-batch-32 (1024): 4 warps, 1 x 1024;
phi-2-decode-32 (2560): 4 warps, 3 x 1024 = 3072. NUM_WARPS 2 gives 9 x 512 = 4608 at 4544 (1.4%
masked) and 12 x 512 at 6144.

Offline sm_90 compile of this kernel (same method), registers / local memory / resident rows per SM
by registers: 4544 at the defaults 64 / 0 / 8 rows (71 KB of x); 6144 71 / 0 / 7 rows (84 KB); 4096
55 / 0 / 9 rows; 1024 31 / 0 / 16 rows. NUM_WARPS 2: 4544 96 / 0 / 10 rows, 6144 127 / 0 / 8 rows.
ROWS 2 at 4 warps: 4544 113 / 0 / 8 rows, 6144 127 / 0 / 8 rows. Every x, weight and bias load is
LDG.E.128 (with the .EF / .EL eviction hints), every store STG.E.128, 5 barriers as in
one_row_registers (none at 1 warp); the SASS issues the NCH x loads back to back, then after the last barrier a
weight/bias pair and a store per chunk. Issuing all weight/bias loads at once (one L1/L2 round trip
instead of NCH) cost 8-9 more registers at 4 warps (80 at 6144: 6 rows instead of 7), so the kernel
keeps the chunk-by-chunk order. Without the 192-element cap, ROWS 4 at 2 warps (256-384 elements a
thread) spilled; with it none of the 60 NUM_WARPS x ROWS points at hidden 1024, 4096, 4544, 5120
and 6144 uses local memory (the largest take 255 registers).

Checked in the Triton interpreter: the suite's cpu and held-out shapes (fp32), and an ad hoc sweep of
every NUM_WARPS x ROWS point at hidden 1, 8, 96, 100, 123, 284, 568, 768, 1280, 2500, 4544, 6144 with
2-7 rows, fp32 and bf16, against torch.nn.functional.layer_norm: within the op's tolerance (fp32
1e-4, bf16 2e-2) for the op's inputs (row mean about 0.5). With a row mean of 1000 in fp32, 48 of
144 cases exceed 1e-4 against torch (one_row_registers: 3 of 12), while this kernel is 5.5e-5 to
6.5e-5 and torch fp32 2.9e-5 to 7.9e-5 from a float64 reference (hidden 96, 1280, 4544). Measured by the harness on one H200 (2026-12-05, bf16, the covering-flush rule; `bash
tools/h200_suite_bench.sh --ops layernorm,rmsnorm,fused_add_rmsnorm suites/llm-inference` into a fresh
folder, call 2 of docs/results/h200-2026-12-05/): the fastest layernorm kernel at gpt-neox-20b-prefill-4k
27.3 us (SOL 0.77, 1.65x torch.compile; one_row_registers was 30.6 us, 0.68, on 2026-12-04), at
falcon-7b-prefill-8k 39.7 us (0.78, 2.05x; was 49.6 us, 0.63) and at clip-vit-l14-336-batch-32 21.1 us
(0.75, 1.02x); behind one_row_registers at gptj-6b-prefill-16k (69.4 against 67.2 us) and behind
persistent_prefetch at the two decode shapes (3.41 and 4.16 us against 3.02 and 4.02). Still short of
SOL 0.85 at the three prefill shapes it wins.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 4
ROWS = 1

_MAX_ELEMS_PER_THREAD = 192
"""Host-side cap on the row elements one thread holds (ROWS x chunks x vector): past it the forward
doubles the warps (an sm_90 compile of ROWS 4 at 2 warps, 256 elements a thread, spills)."""


@triton.jit
def _layernorm_chunks(x_ptr, w_ptr, b_ptr, y_ptr, n_rows, eps,
                      HIDDEN: tl.constexpr, ROWS: tl.constexpr, CHUNK: tl.constexpr, NCH: tl.constexpr,
                      EVEN_ROWS: tl.constexpr):
    # The row is NCH chunks of CHUNK columns (one 16-byte vector per thread per chunk); only the
    # last chunk can run past HIDDEN, so only it carries a column mask.
    TAIL: tl.constexpr = HIDDEN - (NCH - 1) * CHUNK
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, CHUNK)
    x_row = x_ptr + rows[:, None] * HIDDEN
    y_row = y_ptr + rows[:, None] * HIDDEN
    rmask = tl.broadcast_to(rows[:, None] < n_rows, (ROWS, CHUNK))
    # every load of the row is issued before any arithmetic; the row stays in registers as fp32
    xs = ()
    for c in tl.static_range(NCH):
        cc = c * CHUNK + cols
        if c == NCH - 1 and TAIL < CHUNK:
            x = tl.load(x_row + cc[None, :], mask=rmask & (cc < HIDDEN)[None, :], other=0.0,
                        eviction_policy="evict_first")
        elif EVEN_ROWS:
            x = tl.load(x_row + cc[None, :], eviction_policy="evict_first")
        else:
            x = tl.load(x_row + cc[None, :], mask=rmask, other=0.0, eviction_policy="evict_first")
        xs = xs + (x.to(tl.float32),)
    # mean: chunks added lane by lane first, so the row costs one cross-warp reduction, not NCH
    acc = xs[0]
    for c in tl.static_range(1, NCH):
        acc += xs[c]
    mean = (tl.sum(acc, axis=1) * (1.0 / HIDDEN))[:, None]
    # variance of the centred values (two-step: no E[x^2] - E[x]^2 cancellation)
    for c in tl.static_range(NCH):
        d = xs[c] - mean
        if c == NCH - 1 and TAIL < CHUNK:
            d = tl.where((c * CHUNK + cols < HIDDEN)[None, :], d, 0.0)
        if c == 0:
            acc = d * d
        else:
            acc += d * d
    rstd = tl.rsqrt(tl.sum(acc, axis=1) * (1.0 / HIDDEN) + eps)[:, None]
    # weight and bias are read chunk by chunk only now (expected L1/L2 hits), so they
    # are never all live beside the row; one load serves the ROWS rows of the tile
    for c in tl.static_range(NCH):
        cc = c * CHUNK + cols
        if c == NCH - 1 and TAIL < CHUNK:
            cm = cc < HIDDEN
            w = tl.load(w_ptr + cc, mask=cm, other=0.0, eviction_policy="evict_last")
            b = tl.load(b_ptr + cc, mask=cm, other=0.0, eviction_policy="evict_last")
        else:
            w = tl.load(w_ptr + cc, eviction_policy="evict_last")
            b = tl.load(b_ptr + cc, eviction_policy="evict_last")
        y = ((xs[c] - mean) * rstd * w.to(tl.float32)[None, :] + b.to(tl.float32)[None, :]).to(y_ptr.dtype.element_ty)
        if c == NCH - 1 and TAIL < CHUNK:
            tl.store(y_row + cc[None, :], y, mask=rmask & (cc < HIDDEN)[None, :])
        elif EVEN_ROWS:
            tl.store(y_row + cc[None, :], y)
        else:
            tl.store(y_row + cc[None, :], y, mask=rmask)


def _config(hidden: int, elem_size: int) -> tuple[int, int, int]:
    """(warps, CHUNK, NCH) for a row of `hidden` elements of `elem_size` bytes: CHUNK is one 16-byte
    vector per thread across the warps; no more warps than one chunk needs; more warps when a thread
    would hold over _MAX_ELEMS_PER_THREAD elements of its ROWS rows."""
    vec = max(1, 16 // elem_size)
    warps = max(1, min(NUM_WARPS, triton.next_power_of_2(triton.cdiv(hidden, 32 * vec))))
    while warps < 16 and ROWS * triton.cdiv(hidden, 32 * vec * warps) * vec > _MAX_ELEMS_PER_THREAD:
        warps *= 2
    chunk = 32 * vec * warps
    return warps, chunk, triton.cdiv(hidden, chunk)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))
        self.bias = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            warps, chunk, nch = _config(hidden, x2.element_size())
            _layernorm_chunks[(triton.cdiv(n_rows, ROWS),)](
                x2, self.weight, self.bias, y, n_rows, self.eps,
                HIDDEN=hidden, ROWS=ROWS, CHUNK=chunk, NCH=nch, EVEN_ROWS=(n_rows % ROWS == 0),
                num_warps=warps,
            )
        return y.view(x.shape)
