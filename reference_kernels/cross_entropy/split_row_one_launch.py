"""
---
op: cross_entropy
strategy: split-row-one-launch
techniques: [split-reduction, online-softmax, partial-results-workspace, last-arriver-merge, atomic-counter, fp32-accumulate, 2d-grid, masked-tail, cached-workspace, scalar-gather]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK_N: {values: [1024, 2048, 4096, 8192], default: 1024}
  NUM_WARPS: {values: [2, 4, 8], default: 4}
requires: []
sources:
  - https://arxiv.org/abs/1805.02867 (Milakov & Gimelshein, merging partial max/sum pairs)
  - https://triton-lang.org/main/python-api/generated/triton.language.atomic_add.html (sem acq_rel, returns the old value)
  - https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#memory-consistency-model (release/acquire at gpu scope)
---
The split-row kernel without its second launch. A 2D grid of (row, chunk) programs each reduce one
BLOCK_N chunk of logits to its maximum and the sum of exp(x - that maximum), write the pair to a
small fp32 workspace, then bump a per-row arrival counter with an acquire-release atomic add. The
add returns the count before it, so exactly one program per row sees n_chunks - 1: every other chunk
of the row has published its pair by then. That last arriver reads the pairs (volatile loads, so
nothing stale comes from L1), rescales each sum to the row maximum, and writes
loss = row max + log(sum) - target logit; the target logit is one scalar load of the input, which
no program writes, so it needs no ordering. It then puts the counter back to 0, so the next call and
every CUDA-graph replay start clean. The operator returns one loss per row (no ignore_index, no
mean), so the row merge is the last level. The workspace and the counter are allocated once per
(device, n_rows, n_chunks) and kept on the module: allocating per call costs microseconds at decode
sizes, and the counter is zeroed only that first time. A row that fits in one chunk is finished by
its one program directly. Defaults: 1024-wide chunks give 126 programs per 128K-vocab row, about
one per SM of an H200 at batch 1; at prefill row counts the one-row-per-program kernel needs no
counters at all. The counter is shared state: one module instance must not run on two streams at
once.
"""

import torch
import triton
import triton.language as tl

BLOCK_N = 1024
NUM_WARPS = 4


@triton.jit
def _ce_split(x_ptr, t_ptr, out_ptr, part_max_ptr, part_sum_ptr, count_ptr, n_cols, n_chunks,
              BLOCK_N: tl.constexpr, CHUNKS: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    tgt = tl.load(t_ptr + row).to(tl.int64)
    cols = chunk * BLOCK_N + tl.arange(0, BLOCK_N)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    if CHUNKS == 1:
        x_t = tl.load(x_ptr + row * n_cols + tgt).to(tl.float32)
        tl.store(out_ptr + row, m + tl.log(s) - x_t)
    else:
        base = row * n_chunks
        tl.store(part_max_ptr + base + chunk, m)
        tl.store(part_sum_ptr + base + chunk, s)
        tl.debug_barrier()  # every thread's stores are done before the releasing add
        arrived = tl.atomic_add(count_ptr + row, 1, sem="acq_rel")
        if arrived == n_chunks - 1:
            c = tl.arange(0, CHUNKS)
            mask = c < n_chunks
            pm = tl.load(part_max_ptr + base + c, mask=mask, other=-float("inf"), volatile=True)
            ps = tl.load(part_sum_ptr + base + c, mask=mask, other=0.0, volatile=True)
            x_t = tl.load(x_ptr + row * n_cols + tgt).to(tl.float32)
            row_max = tl.max(pm, axis=0)
            total = tl.sum(tl.where(mask, ps * tl.exp(pm - row_max), 0.0), axis=0)
            tl.store(out_ptr + row, row_max + tl.log(total) - x_t)
            tl.store(count_ptr + row, 0)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._workspaces = {}

    def _workspace(self, device: torch.device, n_rows: int, n_chunks: int):
        """Partial maxima, partial sums and the zeroed arrival counters, made once per shape."""
        key = (device, n_rows, n_chunks)
        if key not in self._workspaces:
            self._workspaces[key] = (
                torch.empty((n_rows, n_chunks), dtype=torch.float32, device=device),
                torch.empty((n_rows, n_chunks), dtype=torch.float32, device=device),
                torch.zeros(n_rows, dtype=torch.int32, device=device),
            )
        return self._workspaces[key]

    def forward(self, logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        n_cols = logits.shape[-1]
        x = logits.contiguous()
        t = target.contiguous()
        n_rows = x.shape[0]
        out = torch.empty(n_rows, dtype=torch.float32, device=x.device)
        if n_rows > 0:
            n_chunks = triton.cdiv(n_cols, BLOCK_N)
            part_max, part_sum, count = self._workspace(x.device, n_rows, n_chunks)
            _ce_split[(n_rows, n_chunks)](x, t, out, part_max, part_sum, count, n_cols, n_chunks,
                                          BLOCK_N=BLOCK_N, CHUNKS=triton.next_power_of_2(n_chunks),
                                          num_warps=NUM_WARPS)
        return out
