"""
---
op: embedding
strategy: flat-output-elements-gather
techniques: [gather, flat-1d-grid, int32-indexing, masked-tail, eviction-hints, constexpr-shape-specialization, unmasked-even-grid]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [256, 512, 1024, 2048], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.functional.embedding.html
---
The output seen as one flat run of n_tokens x hidden elements, BLOCK of them per program: each
element finds its token (offset // hidden) and column (offset % hidden), loads that token's id
(the ids of a block are a handful of addresses, kept in L2 with evict_last) and gathers
weight[id, column] (the row offset in 64 bits; the flat offset and its division by hidden in 32
bits unless the output reaches 2^31 elements). The grid is sized by the bytes, not by tokens or
columns: 32 decode tokens of 4096 columns make 128 programs of 1024 elements. torch.compile's
pointwise kernel is also a flat 1D grid, of 512 elements on 8 warps at that shape (Inductor's
autotune record on an H100, session 39). token_tile_2d covers the same work with a 2D grid of token blocks by column
blocks; at llama3-8b-decode-32 it stayed one timer step (2.89 against 2.77 us) behind
torch.compile at every tile tried (session 39, tools/harness_probe.py on an H100).
This kernel, probed the same way on an H100 (session 39 call 3; each point against torch.compile
timed interleaved with it, graph timing) at llama3-8b-decode-256 / -32 / -1: 512 elements on 8
warps 4.52 / 2.77 / 2.52 us against 4.27 / 2.77 / 2.64; 1024 on 4 warps 3.89 / 2.77 / 2.52 (1.10,
1.00, 1.05x); 256 on 2 warps 4.77 / 2.89 / 2.52. So BLOCK=1024 on 4 warps is the default: level with
torch.compile at decode-32, ahead at the other two. Not yet measured into the suite tables (the
call's time ran out before the operator) and not profiled with Nsight.
Nsight Compute on an H100 (session 46, docs/results/2026-12-07-s46, `tools/loser_profile.py`) at
llama3-8b-decode-32: this kernel 3.36 us of device time against torch.compile's 3.26, on the same
grid (128 programs of 128 threads). The difference was in the code: Inductor's kernel has the
hidden size and the element count as constants (the token is a shift of the offset, and there is no
mask when the grid covers the output exactly), where this one divided by a runtime hidden size and
masked every access. So hidden is a compile-time constant here (one build per hidden size a model
uses; any other divisor becomes a multiply-shift) and the masks go when n is a multiple of BLOCK.
Measured into the H100 table after that (session 47, `tools/suite_bench.py --kernels`,
docs/results/2026-12-07-s47/s47a/k1/): decode-256 3.88 -> 3.51 us, decode-32 2.90 -> 2.62, decode-1
2.67 -> 2.43 (graph), prefill-16k 91.69 -> 90.50, prefill-8k 41.06 -> 39.66 (events): 1.02-1.04x
torch.compile at every shape, where it was 0.92-0.98x.
Ids are taken as given: an id outside [0, vocab) is undefined behaviour, as in F.embedding on
CUDA (which asserts).
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024
NUM_WARPS = 4


@triton.jit
def _embedding_flat(ids_ptr, w_ptr, out_ptr, n, HIDDEN: tl.constexpr, BLOCK: tl.constexpr, IDX64: tl.constexpr,
                    EVEN: tl.constexpr):
    pid = tl.program_id(0)
    if IDX64:
        pid = pid.to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)  # 32-bit unless the output has 2^31 elements or more
    tok = offs // HIDDEN                      # a constant divisor: a shift at 4096, a multiply-shift otherwise
    col = offs - tok * HIDDEN
    if EVEN:                                  # the grid covers the output exactly: no masks
        row = tl.load(ids_ptr + tok, eviction_policy="evict_last").to(tl.int64)
        tl.store(out_ptr + offs, tl.load(w_ptr + row * HIDDEN + col))
    else:
        mask = offs < n
        row = tl.load(ids_ptr + tok, mask=mask, other=0, eviction_policy="evict_last").to(tl.int64)
        v = tl.load(w_ptr + row * HIDDEN + col, mask=mask, other=0.0)
        tl.store(out_ptr + offs, v, mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(vocab, hidden))

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        ids = input_ids.reshape(-1).contiguous()
        hidden = self.weight.shape[1]
        n = ids.numel() * hidden
        out = torch.empty((ids.numel(), hidden), dtype=self.weight.dtype, device=self.weight.device)
        if n > 0:
            _embedding_flat[(triton.cdiv(n, BLOCK),)](ids, self.weight, out, n, HIDDEN=hidden, BLOCK=BLOCK,
                                                      IDX64=n + BLOCK >= 2**31, EVEN=n % BLOCK == 0,
                                                      num_warps=NUM_WARPS)
        return out.view(*input_ids.shape, hidden)
