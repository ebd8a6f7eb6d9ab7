"""Realistic model replies for the LLM proposer's tests (RMSNorm on the CPU interpreter)."""

KERNEL = '''"""
---
op: rmsnorm
strategy: {strategy}
{params}---
One program per row; the row is held in registers and reduced in fp32.
"""
import torch
import triton
import triton.language as tl

NUM_WARPS = 4


@triton.jit
def _rms_row(x_ptr, w_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * stride + cols, (x * inv * w).to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor{colon}
        hidden = x.shape[-1]
        x2 = x.reshape(-1, hidden).contiguous()
        y = torch.empty_like(x2)
        _rms_row[(x2.shape[0],)](x2, self.weight, y, hidden, x2.stride(0), self.eps,
                                 BLOCK=triton.next_power_of_2(hidden), num_warps=NUM_WARPS)
        return y.view(x.shape)
'''


def kernel(strategy: str = "one-row-per-program", broken: bool = False, params: str = "") -> str:
    """The reply's kernel; `params` (e.g. "NUM_WARPS: {values: [2, 4, 8], default: 4}") declares a
    tunable space in its front matter."""
    declared = f"params:\n  {params}\n" if params else ""
    return KERNEL.format(strategy=strategy, colon="" if broken else ":", params=declared)


def fenced(prose: str, code: str, after: str = "") -> str:
    return f"{prose}\n\n```python\n{code}```\n{after}"


BROKEN = fenced("I'll start with a simple one-row-per-program kernel: each program loads a whole row, "
                "reduces the sum of squares in fp32 and writes the scaled row.", kernel(broken=True))
FIXED = fenced("You're right, the `def forward` line was missing its colon. Here is the corrected file.",
               kernel())
SLOW = fenced("A correct baseline kernel: one row per program, the row kept in registers.",
              kernel("one-row-slow"))
FAST = fenced("The profile says the kernel is memory-bound; processing the row in a single pass with "
              "vectorized loads should cut DRAM traffic.", kernel("single-pass-fast"))
TWO_BLOCKS = ("The current kernel re-reads the weight for every row. The change is small:\n\n"
              "```python\nw = tl.load(w_ptr + cols, mask=mask, other=0.0)  # hoisted\n```\n\n"
              "Here is the complete file:\n\n```python\n" + kernel("two-blocks") + "```\n\n"
              "This keeps one pass over the input.")
EMPTY = ""
PROSE_ONLY = ("I think the best approach is to keep the row in registers and use more warps for long rows. "
              "Let me know if you want me to write it.")
FALLBACK = fenced("Triton adds launch overhead for these small shapes, so this version uses PyTorch's own "
                  "fused operations, which are already optimal.", '''import torch


class ModelNew(torch.nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x):
        xf = x.float()
        y = xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)
        return (y * self.weight.float()).to(x.dtype)
''')
