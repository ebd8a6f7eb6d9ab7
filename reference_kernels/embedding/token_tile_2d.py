"""
---
op: embedding
strategy: 2d-tile-tokens-by-columns
techniques: [gather, 2d-grid, 2d-tile, int64-offsets, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  TOKENS_PER_PROGRAM: {values: [1, 2, 4, 8, 16], default: 4}
  BLOCK_N: {values: [128, 256, 512, 1024, 2048], default: 512}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.nn.functional.embedding.html
---
A 2D grid over (token blocks, column blocks): each program loads TOKENS_PER_PROGRAM ids and moves a
[tokens, BLOCK_N] tile of gathered rows. Splitting the hidden dimension across programs gives
decode batches enough parallelism (1 token x 4096 columns becomes 8 programs at BLOCK_N 512), while
several tokens per program keep enough bytes in flight per program at prefill.
Measured by the harness on one H200 (2026-12-04, graph replay): at llama3-8b-decode-256 the faster
of the two kernels, 3.76 us, but 0.90x torch.compile's 3.37 us
(docs/results/h200-2026-12-04-suites/llm-inference.json). Nsight Compute on an H100 (session 46,
`tools/loser_profile.py`, docs/results/2026-12-07-s46/s46a/lp-llm/) at llama3-8b-decode-256: 4.22 us
of device time against torch.compile's 4.26, the same 2.1 MB moved (Inductor: 1024 programs of 128
threads, 1024 elements each). Profiled alone it is level; the harness's graph-replay figure (3.76
against 3.60 us, 0.96x, session 45) includes each launch's cost beside the next, which a 64 x 8 grid
of 2D tiles may pay more of than a 1D grid. Not settled.
"""

import torch
import triton
import triton.language as tl

TOKENS_PER_PROGRAM = 4
BLOCK_N = 512
NUM_WARPS = 4


@triton.jit
def _embedding_tile(ids_ptr, w_ptr, out_ptr, n_tokens, hidden, TOKENS: tl.constexpr, BLOCK_N: tl.constexpr):
    toks = tl.program_id(0).to(tl.int64) * TOKENS + tl.arange(0, TOKENS)
    cols = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    tmask = toks < n_tokens
    rows = tl.load(ids_ptr + toks, mask=tmask, other=0).to(tl.int64)
    mask = tmask[:, None] & (cols[None, :] < hidden)
    v = tl.load(w_ptr + rows[:, None] * hidden + cols[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + toks[:, None] * hidden + cols[None, :], v, mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, vocab: int, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(vocab, hidden))

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        ids = input_ids.reshape(-1).contiguous()
        hidden = self.weight.shape[1]
        n_tokens = ids.numel()
        out = torch.empty((n_tokens, hidden), dtype=self.weight.dtype, device=self.weight.device)
        if n_tokens > 0:
            grid = (triton.cdiv(n_tokens, TOKENS_PER_PROGRAM), triton.cdiv(hidden, BLOCK_N))
            _embedding_tile[grid](ids, self.weight, out, n_tokens, hidden,
                                  TOKENS=TOKENS_PER_PROGRAM, BLOCK_N=BLOCK_N, num_warps=NUM_WARPS)
        return out.view(*input_ids.shape, hidden)
