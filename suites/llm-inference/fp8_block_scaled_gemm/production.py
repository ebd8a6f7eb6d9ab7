"""Production baseline: cuBLASLt's block-scaled fp8 GEMM through torch._scaled_mm, with the DeepSeek-V3
scaling the operator states: the activations scaled per 1 x 128 group (cuBLASLt's VEC128 scale
mode) and the weight per 128 x 128 block, fp32 accumulation inside cuBLASLt, bf16 out.

What serving stacks call for this recipe (DeepGEMM, CUTLASS blockwise through vLLM's
cutlass_scaled_mm, vLLM's Triton w8a8_block_fp8_matmul) is not installable here; cuBLASLt's kernel is
the library PyTorch exposes for it (CUDA 12.9 or newer, Hopper), so this module stands for the
library baseline.

The operator's inputs are laid out as vLLM's Triton kernel takes them: a_scale row-major [m, kb],
b_scale row-major [nb, kb] (kb = cdiv(k, 128), nb = cdiv(n, 128)). cuBLASLt wants a_scale m-major
(stride (1, m)), so each call makes that copy (m * kb * 4 bytes: 1.8 MB at m = 8192); serving
stacks have their quantization kernel write the scales m-major instead.

Layout limits of torch._scaled_mm in PyTorch 2.11 (CUDA 13.0), found on an H100 (2026-12-05) by
calling it with each candidate layout and comparing against an fp32 dequantized product:
- the weight scale must be k-block-major with a 16-byte aligned stride; a stride of kb with
  kb % 4 != 0 was accepted by an earlier probe and gave wrong answers from output column 128 on
  (cuBLASLt reads n-block j at j * round_up(kb, 4); PyTorch pull request 166752 describes the same
  silent error), and a padded stride is now refused. The one layout it runs correctly is
  kb % 4 == 0. So where kb % 4 != 0 (k = 2304 and the held-out k = 1400 here) k is zero-padded to
  a multiple of 512: the weight and its scales once per weight (cached while the tensors' data
  pointers and versions stay, up to HELD of them, as a serving stack pads its weights at load),
  the activation and its scales on every call. That costs the baseline round_up(k, 512) / k more
  MACs (2560 / 2304 = 1.11x at DeepSeek-V3's tp8 down projection) plus a copy of the activation;
  the tables say so.
- cuBLASLt's heuristic finds no kernel for m = 1 (nor 7, 333); m = 4 and 8 run. m is zero-padded
  to a multiple of 16; k and n to multiples of 16 where they are not (fp8 leading dimensions).
Zeros change no product, the padded groups' scales are 1, and the result is cut back to [m, n].

The float8_e4m3fn operands arrive as uint8 bit patterns (see op.yaml) and are viewed as fp8 without
a copy. torch._scaled_mm has no fp32 output for block scaling: an fp32 out_dtype gets the bf16
result cast up (the operator runs in bf16). GPU only (op.yaml production.requires).
"""

from collections import OrderedDict

import torch
import torch.nn.functional as F

GROUP = 128
HELD = 8     # padded weights kept (the timer's input sets: at most 8)
ALIGN = 16  # cuBLASLt fp8 GEMM: k and n (leading dimensions) multiples of 16; m padded too (see above)


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _pad_cols(t: torch.Tensor, cols: int, rows: int, value: float = 0.0) -> torch.Tensor:
    """T zero- (or VALUE-) padded on the right to COLS columns and at the bottom to ROWS rows."""
    if t.shape == (rows, cols):
        return t
    return F.pad(t, (0, cols - t.shape[1], 0, rows - t.shape[0]), value=value)


class Production(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._held: OrderedDict = OrderedDict()   # key -> (weight, scale, padded weight, scale view)

    def forward(self, a_fp8: torch.Tensor, a_scale: torch.Tensor, b_fp8: torch.Tensor,
                b_scale: torch.Tensor, out_dtype: torch.dtype) -> torch.Tensor:
        m, k = a_fp8.shape
        n = b_fp8.shape[0]
        kb, nb = _cdiv(k, GROUP), _cdiv(n, GROUP)
        if a_scale.shape != (m, kb) or b_scale.shape != (nb, kb):
            raise ValueError(f"scales {tuple(a_scale.shape)} and {tuple(b_scale.shape)} do not match "
                             f"m={m}, n={n}, k={k} (want ({m}, {kb}) and ({nb}, {kb}))")
        kp = _cdiv(k, ALIGN) * ALIGN if kb % 4 == 0 else _cdiv(k, 4 * GROUP) * 4 * GROUP
        mp = _cdiv(m, ALIGN) * ALIGN
        a = _pad_cols(a_fp8, kp, mp).view(torch.float8_e4m3fn)
        sa = _pad_cols(a_scale, _cdiv(kp, GROUP), mp, 1.0)
        sa = sa.t().contiguous().t()                    # [mp, kb'], m-major
        b, sb = self._weight(b_fp8, b_scale, kp)
        out = torch._scaled_mm(a, b.t(), sa, sb, out_dtype=torch.bfloat16)
        if out.shape != (m, n):
            out = out[:m, :n]
        return out if out_dtype == torch.bfloat16 else out.to(out_dtype)

    def _weight(self, b_fp8: torch.Tensor, b_scale: torch.Tensor, kp: int):
        """The weight padded to [round_up(n, 16), kp] (fp8 view) and its scale as the [kb', nb] view of
        a k-block-contiguous buffer cuBLASLt reads; made once per weight and scale tensor. Up to
        HELD weights are kept (least recently used dropped): the timer rotates through up to 8 input
        sets, each with its own weight, as a served model holds one padded copy per layer."""
        key = tuple((t.data_ptr(), t._version, tuple(t.shape), t.device) for t in (b_fp8, b_scale)) + (kp,)
        if key not in self._held:
            n, nb = b_fp8.shape[0], b_scale.shape[0]
            b = _pad_cols(b_fp8, kp, _cdiv(n, ALIGN) * ALIGN).view(torch.float8_e4m3fn)
            sb = _pad_cols(b_scale, _cdiv(kp, GROUP), nb, 1.0).contiguous()
            # the entry keeps b_fp8 and b_scale alive, so no other tensor can take their addresses
            self._held[key] = (b_fp8, b_scale, b, sb.t())
            while len(self._held) > HELD:
                self._held.popitem(last=False)
        self._held.move_to_end(key)
        return self._held[key][2:]
