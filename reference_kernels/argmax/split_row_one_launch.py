"""
---
op: argmax
strategy: split-row-one-launch
techniques: [argmax-reduction, split-reduction, partial-results-workspace, last-arriver-merge, atomic-counter, lowest-index-tie-break, 2d-grid, masked-tail, cached-workspace]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1024, 2048, 4096, 8192], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://pytorch.org/docs/stable/generated/torch.argmax.html (ties: first maximal index)
  - https://triton-lang.org/main/python-api/generated/triton.language.atomic_add.html (sem acq_rel, returns the old value)
  - https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#memory-consistency-model (release/acquire at gpu scope)
---
The split-row kernel without its second launch. A 2D grid of (row, chunk) programs each reduce one
BLOCK_N chunk to its maximum and the lowest index holding it and write that pair to a small
workspace. Each program then bumps a per-row arrival counter with an acquire-release atomic add; the
add returns the count before it, so exactly one program per row sees n_chunks - 1 and knows every
other chunk of its row has published its pair. That last arriver reads the row's pairs (volatile
loads, so nothing stale comes from L1), keeps the largest value and the lowest index among chunks
holding it (chunks are ordered, so that is the row's lowest index overall), writes the answer and
puts the counter back to 0, so the next call and every CUDA-graph replay start from a clean counter.
The workspace and the counter are allocated once per (device, n_rows, n_chunks) and kept on the
module: allocating them per call would cost microseconds at decode sizes, and the counter must be
zeroed only that first time. A row that fits in one chunk is finished by its one program directly.
Defaults: 1024-wide chunks give 126 programs per 128K-vocab row, about one per SM of an H200 at
batch 1. The counter is shared state: one module instance must not run on two streams at once.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _argmax_split(x_ptr, out_ptr, part_val_ptr, part_idx_ptr, count_ptr, n_cols, n_chunks,
                  BLOCK_N: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    valid = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=valid, other=-float("inf")).to(tl.float32)
    best = tl.max(x, axis=0)
    best_idx = tl.min(tl.where((x == best) & valid, cols, 2147483647), axis=0)
    if CHUNKS == 1:
        tl.store(out_ptr + row, best_idx.to(tl.int64))
    else:
        base = row * n_chunks
        tl.store(part_val_ptr + base + chunk, best)
        tl.store(part_idx_ptr + base + chunk, best_idx)
        tl.debug_barrier()  # every thread's stores are done before the releasing add
        arrived = tl.atomic_add(count_ptr + row, 1, sem="acq_rel")
        if arrived == n_chunks - 1:
            c = tl.arange(0, CHUNKS)
            mask = c < n_chunks
            v = tl.load(part_val_ptr + base + c, mask=mask, other=-float("inf"), volatile=True)
            i = tl.load(part_idx_ptr + base + c, mask=mask, other=2147483647, volatile=True)
            row_best = tl.max(v, axis=0)
            row_idx = tl.min(tl.where((v == row_best) & mask, i, 2147483647), axis=0)
            tl.store(out_ptr + row, row_idx.to(tl.int64))
            tl.store(count_ptr + row, 0)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._workspaces = {}

    def _workspace(self, device: torch.device, n_rows: int, n_chunks: int):
        """Partial values, partial indices and the zeroed arrival counters, made once per shape."""
        key = (device, n_rows, n_chunks)
        if key not in self._workspaces:
            self._workspaces[key] = (
                torch.empty((n_rows, n_chunks), dtype=torch.float32, device=device),
                torch.empty((n_rows, n_chunks), dtype=torch.int32, device=device),
                torch.zeros(n_rows, dtype=torch.int32, device=device),
            )
        return self._workspaces[key]

    def forward(self, logits: torch.Tensor) -> torch.Tensor:
        n_cols = logits.shape[-1]
        x = logits.reshape(-1, n_cols).contiguous()
        n_rows = x.shape[0]
        out = torch.empty(n_rows, dtype=torch.int64, device=x.device)
        if n_rows > 0:
            n_chunks = triton.cdiv(n_cols, BLOCK_N)
            part_val, part_idx, count = self._workspace(x.device, n_rows, n_chunks)
            _argmax_split[(n_rows, n_chunks)](x, out, part_val, part_idx, count, n_cols, n_chunks,
                                              BLOCK_N=BLOCK_N, num_warps=NUM_WARPS,
                                              CHUNKS=triton.next_power_of_2(n_chunks))
        return out.view(logits.shape[:-1])
