"""Layer normalization over a sample's last dims when there are few, very long rows
(16 samples of 64 x 256 x 256 = 4,194,304 floats each).

One program per row would leave all but 16 SMs idle, so each row is split into chunks of CHUNK
floats and the statistics are reduced in two launches:
1. `_ln_partials`, grid (rows, chunks): each program sums x - k and (x - k)**2 over its chunk,
   with k the row's first element as a shift (it keeps sum of squares minus squared sum from
   cancelling when the mean is far from 0), and writes the two partial sums.
2. `_ln_apply`, grid (rows, chunks): each program adds up its row's partial sums (a few hundred
   floats), forms the mean and the biased variance, and writes
   (x - mean) / sqrt(var + eps) * weight + bias for its chunk.
The input is read twice and the output written once; weight and bias (one normalized shape's
worth each) once per sample. The parameters live in `self.ln` with nn.LayerNorm's names
(`ln.weight`, `ln.bias`) so the reference's state dict loads unchanged. Row offsets are 64-bit.
"""

import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

CHUNK = 16384
BLOCK = 2048
MAX_CHUNKS = 1024
EPS = 1e-5  # nn.LayerNorm's default, which the problem's Model keeps
NUM_WARPS = 8


@triton.jit
def _ln_partials(x_ptr, part_ptr, n, n_chunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1)
    row = r.to(tl.int64) * n
    k = tl.load(x_ptr + row).to(tl.float32)
    s1 = tl.zeros([BLOCK], dtype=tl.float32)
    s2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, CHUNK, BLOCK):
        offs = c * CHUNK + start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + row + offs, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - k, 0.0)
        s1 += d
        s2 += d * d
    out = part_ptr + (r * n_chunks + c) * 2
    tl.store(out, tl.sum(s1, axis=0))
    tl.store(out + 1, tl.sum(s2, axis=0))


@triton.jit
def _ln_apply(x_ptr, w_ptr, b_ptr, y_ptr, part_ptr, n, n_chunks, eps,
              CHUNK: tl.constexpr, BLOCK: tl.constexpr, BLOCK_P: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1)
    row = r.to(tl.int64) * n
    p = tl.arange(0, BLOCK_P)
    pm = p < n_chunks
    s1 = tl.sum(tl.load(part_ptr + (r * n_chunks + p) * 2, mask=pm, other=0.0), axis=0)
    s2 = tl.sum(tl.load(part_ptr + (r * n_chunks + p) * 2 + 1, mask=pm, other=0.0), axis=0)
    k = tl.load(x_ptr + row).to(tl.float32)
    shift_mean = s1 / n
    var = tl.maximum(s2 / n - shift_mean * shift_mean, 0.0)
    mean = k + shift_mean
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, CHUNK, BLOCK):
        offs = c * CHUNK + start + tl.arange(0, BLOCK)
        mask = offs < n
        x = tl.load(x_ptr + row + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd * w + b
        tl.store(y_ptr + row + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape = shape
        self.eps = EPS
        self.ln = nn.Module()
        self.ln.weight = nn.Parameter(torch.ones(shape))
        self.ln.bias = nn.Parameter(torch.zeros(shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        k = len(self.normalized_shape)
        if tuple(x.shape[x.dim() - k:]) != self.normalized_shape:
            raise ValueError(f"input's last dims {tuple(x.shape)} do not match {self.normalized_shape}")
        n = math.prod(self.normalized_shape)
        xc = x.contiguous()
        y = torch.empty_like(xc)
        rows = xc.numel() // n if n else 0
        if rows == 0 or n == 0:
            return y
        chunk = max(CHUNK, triton.next_power_of_2(triton.cdiv(n, MAX_CHUNKS)))
        n_chunks = triton.cdiv(n, chunk)
        block = min(BLOCK, chunk)
        part = torch.empty((rows, n_chunks, 2), device=xc.device, dtype=torch.float32)
        grid = (rows, n_chunks)        # at most MAX_CHUNKS on the second axis (limit 65535)
        _ln_partials[grid](xc, part, n, n_chunks, CHUNK=chunk, BLOCK=block, num_warps=NUM_WARPS)
        _ln_apply[grid](xc, self.ln.weight, self.ln.bias, y, part, n, n_chunks, self.eps,
                        CHUNK=chunk, BLOCK=block, BLOCK_P=max(16, triton.next_power_of_2(n_chunks)),
                        num_warps=NUM_WARPS)
        return y
