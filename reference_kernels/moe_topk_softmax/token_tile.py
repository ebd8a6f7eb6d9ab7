"""
---
op: moe_topk_softmax
strategy: multi-token-tile-iterative-argmax
techniques: [multi-row-per-program, 2d-tile, fp32-accumulate, iterative-top-k, lowest-index-tie-break, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  TOKENS_PER_PROGRAM: {values: [1, 2, 4, 8, 16, 32], default: 8}
  NUM_WARPS: {values: [1, 2, 4, 8], default: 4}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/moe/topk_softmax_kernels.cu (semantics)
---
Each program routes a [TOKENS_PER_PROGRAM, n_experts] tile: a row-wise fp32 softmax, then top_k
rounds of row-wise max / lowest-index-of-max / knock-out, all as 2D register operations. With only
8-128 experts a token is far too little work for a program; packing several tokens per program
amortizes the per-program overhead and lets one coalesced load cover several rows, which is what
the prefill router needs.
"""

import torch
import triton
import triton.language as tl

TOKENS_PER_PROGRAM = 8
NUM_WARPS = 4


@triton.jit
def _topk_softmax_tile(x_ptr, w_ptr, id_ptr, n_tokens, n_experts, top_k, renorm,
                       T: tl.constexpr, E: tl.constexpr, K: tl.constexpr):
    toks = tl.program_id(0).to(tl.int64) * T + tl.arange(0, T)
    e = tl.arange(0, E)
    tmask = toks < n_tokens
    emask = e < n_experts
    x = tl.load(x_ptr + toks[:, None] * n_experts + e[None, :], mask=tmask[:, None] & emask[None, :],
                other=0.0).to(tl.float32)
    x = tl.where(emask[None, :], x, -float("inf"))  # padded tokens stay finite (no NaN rows)
    p = tl.exp(x - tl.max(x, axis=1)[:, None])
    p = p / tl.sum(p, axis=1)[:, None]
    p = tl.where(emask[None, :], p, -1.0)
    kk = tl.arange(0, K)
    vals = tl.zeros([T, K], dtype=tl.float32)
    ids = tl.zeros([T, K], dtype=tl.int32)
    for i in range(0, top_k):
        m = tl.max(p, axis=1)
        idx = tl.min(tl.where(p == m[:, None], e[None, :], E), axis=1)
        vals = tl.where(kk[None, :] == i, m[:, None], vals)
        ids = tl.where(kk[None, :] == i, idx[:, None], ids)
        p = tl.where(e[None, :] == idx[:, None], -1.0, p)
    if renorm != 0:
        vals = vals / tl.sum(vals, axis=1)[:, None]
    mask = tmask[:, None] & (kk[None, :] < top_k)
    tl.store(w_ptr + toks[:, None] * top_k + kk[None, :], vals, mask=mask)
    tl.store(id_ptr + toks[:, None] * top_k + kk[None, :], ids, mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, top_k: int, renormalize: int):
        super().__init__()
        self.top_k, self.renormalize = top_k, bool(renormalize)

    def forward(self, gating_output: torch.Tensor):
        x = gating_output.contiguous()
        n_tokens, n_experts = x.shape
        weights = torch.empty((n_tokens, self.top_k), dtype=torch.float32, device=x.device)
        ids = torch.empty((n_tokens, self.top_k), dtype=torch.int32, device=x.device)
        if n_tokens > 0:
            _topk_softmax_tile[(triton.cdiv(n_tokens, TOKENS_PER_PROGRAM),)](
                x, weights, ids, n_tokens, n_experts, self.top_k, int(self.renormalize),
                T=TOKENS_PER_PROGRAM, E=triton.next_power_of_2(n_experts),
                K=triton.next_power_of_2(self.top_k), num_warps=NUM_WARPS,
            )
        return weights, ids
