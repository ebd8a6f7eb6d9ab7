"""One expert projection of a mixture-of-experts layer (vLLM fused_moe kernel semantics): every
(token, choice) pair goes through its expert's weight matrix, scaled by its routing weight."""

import torch


class Model(torch.nn.Module):
    def __init__(self, n_experts: int, hidden: int, n_out: int):
        super().__init__()
        # one nn.Linear-style weight per expert: [n_out, hidden]
        self.weight = torch.nn.Parameter(torch.randn(n_experts, n_out, hidden) / hidden ** 0.5)

    def forward(self, x: torch.Tensor, topk_ids: torch.Tensor, topk_weights: torch.Tensor) -> torch.Tensor:
        # x [n_tokens, hidden]; topk_ids int32 [n_tokens, top_k]; topk_weights fp32 [n_tokens, top_k]
        n_tokens, top_k = topk_ids.shape
        y = torch.zeros(n_tokens, top_k, self.weight.shape[1], dtype=torch.float32, device=x.device)
        ids = topk_ids.long()
        for e in range(self.weight.shape[0]):
            tok, slot = (ids == e).nonzero(as_tuple=True)
            if tok.numel():
                y[tok, slot] = (x[tok].float() @ self.weight[e].float().T) * topk_weights[tok, slot, None].float()
        return y.to(x.dtype)


def init_kwargs(*, n_experts: int, hidden: int, n_out: int, **_) -> dict:
    return {"n_experts": n_experts, "hidden": hidden, "n_out": n_out}


def make_inputs(*, dtype, device, n_tokens: int, hidden: int, n_out: int, n_experts: int, top_k: int) -> list:
    x = torch.randn(n_tokens, hidden, dtype=dtype, device=device)
    # skewed routing (some experts much hotter than others), top_k distinct experts per token ...
    popularity = torch.rand(n_experts, device=device) ** 2 + 0.05
    ids = torch.multinomial(popularity.expand(n_tokens, n_experts), top_k, replacement=False)
    # ... and the first tokens cover experts round-robin, so exactly min(n_experts, n_tokens * top_k)
    # experts are used (what the roofline counts)
    perm = torch.randperm(n_experts, device=device)
    cover = min(n_tokens, -(-n_experts // top_k))
    slots = torch.arange(cover * top_k, device=device).view(cover, top_k) % n_experts
    ids[:cover] = perm[slots]
    ids = ids[torch.randperm(n_tokens, device=device)]
    w = torch.rand(n_tokens, top_k, device=device) + 0.1
    topk_weights = w / w.sum(dim=-1, keepdim=True)
    return [x, ids.to(torch.int32), topk_weights]
