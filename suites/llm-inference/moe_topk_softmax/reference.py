"""MoE routing: fp32 softmax over experts, top-k (stable: lower index first on ties), optional renorm."""

import torch


class Model(torch.nn.Module):
    def __init__(self, top_k: int, renormalize: int):
        super().__init__()
        self.top_k, self.renormalize = top_k, bool(renormalize)

    def forward(self, gating_output: torch.Tensor):
        probs = torch.softmax(gating_output.float(), dim=-1)
        vals, ids = torch.sort(probs, dim=-1, descending=True, stable=True)
        weights, ids = vals[:, : self.top_k], ids[:, : self.top_k]
        if self.renormalize:
            weights = weights / weights.sum(dim=-1, keepdim=True)
        return weights, ids.to(torch.int32)


def init_kwargs(*, top_k: int, renormalize: int, **_) -> dict:
    return {"top_k": top_k, "renormalize": renormalize}


def make_inputs(*, dtype, device, n_tokens: int, n_experts: int, **_) -> list:
    logits = torch.randn(n_tokens, n_experts, device=device)
    top = logits.max(dim=-1, keepdim=True).values + 0.5
    cols = torch.randint(0, n_experts, (n_tokens, 2), device=device)
    logits.scatter_(1, cols, top.expand(n_tokens, 2))  # a tied maximum: the lower index ranks first
    return [logits.to(dtype)]
