"""
---
op: moe_topk_softmax
strategy: one-token-per-program-iterative-argmax
techniques: [whole-row-in-registers, fp32-accumulate, iterative-top-k, lowest-index-tie-break, masked-tail]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  NUM_WARPS: {values: [1, 2, 4], default: 1}
requires: []
sources:
  - https://github.com/vllm-project/vllm/blob/main/csrc/moe/topk_softmax_kernels.cu (semantics)
---
One program per token holds the token's expert logits (8-256 of them) in registers, computes the
fp32 softmax, then runs top_k rounds of "take the maximum, take the lowest index holding it, knock
it out", collecting the winners in a small [top_k] register vector that is renormalized and stored
in one go. The work per token is tiny, so one warp per program is enough; prefill's many tokens fill
the GPU, while at decode the launch dominates.
"""

import torch
import triton
import triton.language as tl

NUM_WARPS = 1


@triton.jit
def _topk_softmax_token(x_ptr, w_ptr, id_ptr, n_experts, top_k, renorm,
                        E: tl.constexpr, K: tl.constexpr):
    tok = tl.program_id(0).to(tl.int64)
    e = tl.arange(0, E)
    emask = e < n_experts
    x = tl.load(x_ptr + tok * n_experts + e, mask=emask, other=-float("inf")).to(tl.float32)
    p = tl.exp(x - tl.max(x, axis=0))
    p = p / tl.sum(p, axis=0)
    p = tl.where(emask, p, -1.0)
    kk = tl.arange(0, K)
    vals = tl.zeros([K], dtype=tl.float32)
    ids = tl.zeros([K], dtype=tl.int32)
    for i in range(0, top_k):
        m = tl.max(p, axis=0)
        idx = tl.min(tl.where(p == m, e, E), axis=0)
        vals = tl.where(kk == i, m, vals)
        ids = tl.where(kk == i, idx, ids)
        p = tl.where(e == idx, -1.0, p)
    if renorm != 0:
        vals = vals / tl.sum(vals, axis=0)
    kmask = kk < top_k
    tl.store(w_ptr + tok * top_k + kk, vals, mask=kmask)
    tl.store(id_ptr + tok * top_k + kk, ids, mask=kmask)


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
            _topk_softmax_token[(n_tokens,)](
                x, weights, ids, n_experts, self.top_k, int(self.renormalize),
                E=triton.next_power_of_2(n_experts), K=triton.next_power_of_2(self.top_k), num_warps=NUM_WARPS,
            )
        return weights, ids
