"""Production baseline: PyTorch's scaled_dot_product_attention, one call per sequence of the packed
batch with is_causal=True and enable_gqa=True. PyTorch picks the back-end: FlashAttention-2 for
bf16 on an H100/H200, the memory-efficient or cuDNN kernels where FlashAttention cannot run, and
its math or CPU kernels on the interpreter.

What a serving stack calls: vLLM and SGLang run prefill through FlashAttention's varlen kernel
(vllm-flash-attn's flash_attn_varlen_func, FlashAttention-3 on Hopper) or FlashInfer, one launch
for the whole packed batch; neither is installable here. Their PyTorch back-ends (vLLM's
TORCH_SDPA, SGLang's torch_native) do what this module does: one SDPA call per sequence.
"""

import torch
import torch.nn.functional as F


class Production(torch.nn.Module):
    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, cu_seqlens: torch.Tensor,
                max_seqlen: int) -> torch.Tensor:
        out = torch.empty_like(q)
        bounds = cu_seqlens.tolist()
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            # [tokens, heads, head_dim] -> [1, heads, tokens, head_dim]: SDPA's fused kernels take 4-D
            qs, ks, vs = (t[lo:hi].transpose(0, 1).unsqueeze(0) for t in (q, k, v))
            o = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True, enable_gqa=True)
            out[lo:hi] = o[0].transpose(0, 1)
        return out
