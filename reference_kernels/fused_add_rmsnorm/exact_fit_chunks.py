"""
---
op: fused_add_rmsnorm
strategy: exact-fit-vector-chunks
techniques: [kernel-fusion, whole-row-in-registers, exact-fit-chunks, multi-row-per-program, eviction-hints, fp32-accumulate, single-pass, masked-tail, unmasked-even-path, warps-from-row-length]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
  ROWS: {values: [1, 2, 4], default: 1}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/layernorm_kernels.cu (fused_add_rms_norm semantics)
  - https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#compute-capabilities (sm_90: 64K registers, 64 warps, 32 blocks per SM)
---
Written for the prefill rows of issue 9; a port of layernorm/exact_fit_chunks (where the design
comes from, with its longer argument about padding and occupancy) to the residual add + RMSNorm.
Measured on the H200 2026-12-04 by the harness (best kernel per shape, SOL at 4.8 TB/s):
llama3-8b-prefill-16k (hidden 4096) latency_rows 130.7 us, SOL 0.86; llama3-70b-prefill-4k (8192)
66.5 us, 0.84; qwen2.5-7b-prefill-8k (3584, not a power of two: a 4096 tile masks 12.5% of its
lanes) 58.0 us, 0.84. The target (issue 9) is SOL >= 0.85 at every prefill shape.

Design, as in layernorm/exact_fit_chunks. The row is NCH separate [ROWS, CHUNK] register tiles held
in tuples (unrolled with tl.static_range), CHUNK = 32 x warps x (16 bytes / element size), one
16-byte vector per thread per chunk, NCH = cdiv(hidden, CHUNK); only the last chunk can run past the
row and only it is masked. All loads of x and residual are issued before any arithmetic
(evict_first), and so before the residual_out stores, above which the compiler may not move a load.
Then per chunk: residual_out = x + residual rounded to the storage dtype (as the unfused model),
stored, kept in registers as fp32, and its squares added lane by lane, so the sum of squares costs
one cross-warp reduction whatever NCH is (masked lanes are 0). The weight is loaded chunk by chunk
only after the statistic (evict_last), each load serving the ROWS rows of the tile; as the
reference, the normalized row is rounded to the output dtype before the weight multiplies it.
Returns (out, residual_out) and writes into neither input, as the reference (op.yaml lists no
mutated input). Warps = min(NUM_WARPS, next_pow2(cdiv(hidden, 32 x vector))), doubled while a
thread would hold more than 192 elements of its rows; ROWS rows per program share the weight
registers; when ROWS does not divide the row count the rows are masked, else not.

Config per suite shape in bf16 at the defaults (NUM_WARPS 4, ROWS 1), from the forward:
llama3-8b-prefill-16k, llama3-8b-decode-32 and llama3-8b-decode-1 (4096): 4 warps, 4 chunks of
1024, none masked; llama3-70b-prefill-4k and llama3-70b-decode-256 (8192): 4 warps, 8 x 1024, none
masked; qwen2.5-7b-prefill-8k (3584 = 3.5 x 1024): 4 warps, 4 x 1024 = 4096, the last chunk half
masked, so 12.5% of the lanes as in a 4096 tile: the exact fit at 3584 is NUM_WARPS 2 (7 x 512) or
1 (14 x 256), for the tuner to find. Held-out: odd-rows-5120 5 x 1024 exact; qwen2.5-1.5b-odd (1536)
2 x 1024 (NUM_WARPS 2: 3 x 512 exact); tiny-odd-hidden (2880) 3 x 1024 (6% masked; 2880 is 360
vectors, so no warp count fits it exactly).

Offline sm_90 compile (the method of layernorm/exact_fit_chunks: Triton 3.7.1 ASTSource for
GPUTarget("cuda", 90, 32), pointers and the row count marked divisible by 16 as the launcher does,
registers and local memory from the bundled cuobjdump --dump-resource-usage, instructions from
cuobjdump -sass; resident rows per SM from registers, 64K a SM, and the 64-warp limit), registers /
local memory / resident rows per SM, bf16: 3584 and 4096 at the defaults 48 / 0 / 10 rows; 8192
80 / 0 / 6 rows; 3584 at NUM_WARPS 2 (exact fit) 72 / 0 / 14 rows. one_row_registers at its default
8 warps: 3584 and 4096 (BLOCK 4096) 32 / 0 / 8 rows (registers and warps both allow 8), 8192 62 / 0 /
4 rows. Every load here is LDG.E.128 (x and residual .EF: 8 at 3584 and 4096, 16 at 8192, 14 at 3584
with 2 warps; the weight .EL: 4, 8, 7) and every store STG.E.128 (residual_out and out: 8, 16, 14);
at 3584 with 4 warps the half-masked last chunk keeps the same 16-byte instructions under a
predicate. The SASS issues the 2 x NCH loads back to back, then the NCH residual_out stores, the
reduction (2 barriers, as one_row_registers), then a weight load and an out store per chunk. None
of the 72 NUM_WARPS x ROWS points at bf16 hidden 1536, 2880, 3584, 4096, 5120 and 8192, nor 12 fp32
points at 3584 and 8192, uses local memory, but the largest reach 255 registers (5120 at ROWS 2 and
4 with 2 or 4 warps, 2880 at 2 warps ROWS 4). Issuing all NCH weight loads at once after the statistic (one
L1/L2 round trip instead of NCH) cost registers at the defaults: 4096 56 (9 rows instead of 10),
8192 96 (5 rows instead of 6), 3584 at NUM_WARPS 2 79 (12 instead of 14), so the kernel keeps the
chunk-by-chunk order of its origin.

Checked in the Triton interpreter: the suite's cpu and cpu held-out shapes (fp32, the tests and the
evaluator), and an ad hoc sweep of every NUM_WARPS x ROWS point at hidden 1, 8, 96, 100, 123, 200,
284, 448 (7 x 64), 896, 2500 and 3584 with 1-7 rows, fp32 and bf16 (1848 cases, both outputs),
against the reference module: all within the op's tolerance (fp32 1e-4, worst 7.2e-7; bf16 2e-2),
inputs left unchanged. In bf16 the interpreter rounds fp32 to bf16 toward zero (torch and the GPU
round to nearest), so its residual_out is up to 1 bf16 ulp and its out up to 3 ulps from torch's;
both are bit-equal to latency_rows' in the interpreter at the 32 cases compared. Measured by the harness on one
H200 at its defaults (2026-12-05, bf16; call 2 of docs/results/h200-2026-12-05/): slower than
latency_rows and persistent_prefetch at every shape: prefill 136.6 / 70.6 / 59.8 us (SOL 0.82 / 0.79 /
0.82) against 130.0 / 65.9 / 57.3, decode 3.63 / 7.13 / 3.63 us against 3.07 / 6.32 / 2.82.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 4
ROWS = 1

_MAX_ELEMS_PER_THREAD = 192
"""Host-side cap on the row elements one thread holds (ROWS x chunks x vector): past it the forward
doubles the warps, so the held row does not spill."""


@triton.jit
def _add_rmsnorm_chunks(x_ptr, r_ptr, w_ptr, y_ptr, ro_ptr, n_rows, eps,
                        HIDDEN: tl.constexpr, ROWS: tl.constexpr, CHUNK: tl.constexpr, NCH: tl.constexpr,
                        EVEN_ROWS: tl.constexpr):
    # The row is NCH chunks of CHUNK columns (one 16-byte vector per thread per chunk); only the
    # last chunk can run past HIDDEN, so only it carries a column mask.
    TAIL: tl.constexpr = HIDDEN - (NCH - 1) * CHUNK
    rows = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    cols = tl.arange(0, CHUNK)
    offs = rows[:, None] * HIDDEN + cols[None, :]
    rmask = tl.broadcast_to(rows[:, None] < n_rows, (ROWS, CHUNK))
    # every load of x and residual is issued before any arithmetic (and before the residual_out
    # stores, which the compiler may not move loads above)
    xs = ()
    rs = ()
    for c in tl.static_range(NCH):
        o = offs + c * CHUNK
        if c == NCH - 1 and TAIL < CHUNK:
            m = rmask & ((c * CHUNK + cols) < HIDDEN)[None, :]
            x = tl.load(x_ptr + o, mask=m, other=0.0, eviction_policy="evict_first")
            r = tl.load(r_ptr + o, mask=m, other=0.0, eviction_policy="evict_first")
        elif EVEN_ROWS:
            x = tl.load(x_ptr + o, eviction_policy="evict_first")
            r = tl.load(r_ptr + o, eviction_policy="evict_first")
        else:
            x = tl.load(x_ptr + o, mask=rmask, other=0.0, eviction_policy="evict_first")
            r = tl.load(r_ptr + o, mask=rmask, other=0.0, eviction_policy="evict_first")
        xs = xs + (x,)
        rs = rs + (r,)
    # residual_out = x + residual rounded to the storage dtype (as the unfused model), written out
    # chunk by chunk and kept in registers as fp32; the sum of squares is accumulated lane by lane
    # so the row costs one cross-warp reduction whatever NCH is (masked lanes add 0)
    ss = ()
    for c in tl.static_range(NCH):
        o = offs + c * CHUNK
        s = (xs[c].to(tl.float32) + rs[c].to(tl.float32)).to(ro_ptr.dtype.element_ty)
        if c == NCH - 1 and TAIL < CHUNK:
            tl.store(ro_ptr + o, s, mask=rmask & ((c * CHUNK + cols) < HIDDEN)[None, :])
        elif EVEN_ROWS:
            tl.store(ro_ptr + o, s)
        else:
            tl.store(ro_ptr + o, s, mask=rmask)
        sf = s.to(tl.float32)
        if c == 0:
            acc = sf * sf
        else:
            acc += sf * sf
        ss = ss + (sf,)
    inv_rms = tl.rsqrt(tl.sum(acc, axis=1) * (1.0 / HIDDEN) + eps)[:, None]
    # the weight is read chunk by chunk only now (expected L1/L2 hits), so it is never all live
    # beside the row; one load serves the ROWS rows of the tile. As the reference: the normalized
    # row is rounded to the output dtype before the weight multiplies it.
    for c in tl.static_range(NCH):
        cc = c * CHUNK + cols
        o = offs + c * CHUNK
        if c == NCH - 1 and TAIL < CHUNK:
            w = tl.load(w_ptr + cc, mask=cc < HIDDEN, other=0.0, eviction_policy="evict_last")
        else:
            w = tl.load(w_ptr + cc, eviction_policy="evict_last")
        sn = (ss[c] * inv_rms).to(y_ptr.dtype.element_ty).to(tl.float32)
        y = (sn * w.to(tl.float32)[None, :]).to(y_ptr.dtype.element_ty)
        if c == NCH - 1 and TAIL < CHUNK:
            tl.store(y_ptr + o, y, mask=rmask & (cc < HIDDEN)[None, :])
        elif EVEN_ROWS:
            tl.store(y_ptr + o, y)
        else:
            tl.store(y_ptr + o, y, mask=rmask)


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

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        r2 = residual.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        ro = torch.empty_like(x2)
        n_rows = x2.shape[0]
        if n_rows > 0:
            warps, chunk, nch = _config(hidden, x2.element_size())
            _add_rmsnorm_chunks[(triton.cdiv(n_rows, ROWS),)](
                x2, r2, self.weight, y, ro, n_rows, self.eps,
                HIDDEN=hidden, ROWS=ROWS, CHUNK=chunk, NCH=nch, EVEN_ROWS=(n_rows % ROWS == 0),
                num_warps=warps,
            )
        return y.view(x.shape), ro.view(x.shape)
