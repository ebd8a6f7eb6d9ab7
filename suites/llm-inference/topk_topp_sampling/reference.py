"""Top-k then top-p (nucleus) sampling of one token per row by an exponential race (vLLM's
sampler: argmax of p / q with q ~ Exp(1)), the noise given as an input so the operator is
deterministic. Thresholds, not ranks: ties are kept together."""

import torch


class Model(torch.nn.Module):
    def forward(self, logits: torch.Tensor, top_k: torch.Tensor, top_p: torch.Tensor,
                noise: torch.Tensor) -> torch.Tensor:
        # logits [n_rows, vocab]; top_k int32 [n_rows] in 1..vocab; top_p fp32 [n_rows] in (0, 1];
        # noise fp32 [n_rows, vocab], positive Exp(1) samples
        x = logits.float() + 0.0  # + 0.0 turns -0.0 into +0.0
        vocab = x.shape[-1]
        srt = x.sort(dim=-1, descending=True).values
        # top-k: keep every logit >= the k-th largest (ties with the k-th value are all kept)
        kth = srt.gather(1, (top_k.long() - 1).clamp(0, vocab - 1)[:, None])
        e = torch.where(x >= kth, torch.exp(x - srt[:, :1]), torch.zeros_like(x))
        # top-p: keep token i iff the mass of tokens with strictly larger probability is < top_p
        es = e.sort(dim=-1, descending=True).values
        excl = es.cumsum(dim=-1) - es
        inside = excl < top_p[:, None].float() * es.sum(dim=-1, keepdim=True)
        tau = es.masked_fill(~inside, float("inf")).amin(dim=-1, keepdim=True)
        kept = (e >= tau) & (e > 0)
        # exponential race over the kept tokens: argmax of e / q (the first index on ties); the
        # normalization of e does not change the argmax, so none is done
        score = torch.where(kept, e / noise.float(), torch.full_like(e, -1.0))
        return score.argmax(dim=-1).to(torch.int64)


def make_inputs(*, dtype, device, n_rows: int, vocab: int) -> list:
    # bf16-valued logits (exact ties occur, as in production) in whatever dtype runs
    logits = (4.0 * torch.randn(n_rows, vocab, device=device)).to(torch.bfloat16).float()
    choices_k = torch.tensor([1, 20, 50, 100, vocab], device=device).clamp(max=vocab)
    top_k = choices_k[torch.randint(0, 5, (n_rows,), device=device)].to(torch.int32)
    choices_p = torch.tensor([0.5, 0.8, 0.9, 0.95, 1.0], device=device)
    top_p = choices_p[torch.randint(0, 5, (n_rows,), device=device)]
    # plant a tie with the k-th largest logit below the top k, so the tie rule matters
    kth = logits.sort(dim=-1, descending=True).values.gather(1, (top_k.long() - 1)[:, None])
    for r in range(n_rows):
        below = (logits[r] < kth[r]).nonzero().flatten()
        if below.numel():
            logits[r, below[torch.randint(0, below.numel(), ())]] = kth[r, 0]
    # Exp(1) noise, kept away from 0 so e / q stays finite
    noise = torch.empty(n_rows, vocab, device=device).exponential_().clamp_(min=1e-10)
    return [logits.to(dtype), top_k, top_p, noise]
