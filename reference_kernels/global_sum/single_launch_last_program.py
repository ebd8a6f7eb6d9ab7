"""
---
op: global_sum
strategy: grid-stride-partials-last-program-finalize
techniques: [grid-stride, occupancy-sized-grid, last-program-finalize, atomic-counter, single-launch, deterministic, fp32-accumulate, masked-tail, eviction-hints]
dsl: triton
vendors: [nvidia, amd]
archs: [any]
params:
  BLOCK: {values: [1024, 2048, 4096, 8192], default: 4096}
  PROGRAMS_PER_SM: {values: [1, 2, 4, 8], default: 4}
  NUM_WARPS: {values: [4, 8, 16], default: 16}
  ONE_PROGRAM_BLOCK: {values: [1024, 2048, 4096], default: 2048}
  ONE_PROGRAM_WARPS: {values: [4, 8, 16, 32], default: 8}
requires: []
sources:
  - https://developer.download.nvidia.com/assets/cuda/files/reduction.pdf
  - https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#memory-fence-functions
---
One launch at every size. A grid of PROGRAMS_PER_SM x SM-count programs (capped at one per BLOCK)
sweeps the tensor grid-stride, so that at each step all programs read neighbouring BLOCKs. Each
program reduces its blocks into an fp32 vector, stores one partial and bumps an arrival counter
(acq_rel atomic after a CTA barrier). The program that arrives last sums all partials in program
order from L2, writes the 0-d result and resets the counter. Unlike atomic_accumulate there is no
zero-init kernel and no float atomics, so the result is deterministic. Unlike two_kernel_tree
there is no second launch. Up to BLOCK elements (n = 4096, 777) take a single program and no
counter, stepping ONE_PROGRAM_BLOCK elements at a time on ONE_PROGRAM_WARPS warps. The counter is
an int32 the module zeroes once per device. A grid that loops (16M, 64M) runs 16 warps per program,
and one block per program (1M) runs 8.
Not profiled with Nsight. On the H200 atomic_accumulate (zero kernel plus atomics) took 6.24 us at
n = 1M against torch.compile's 5.37 (CUDA graph), and two_kernel_tree 66.91 against 65.86 at 64M.
An earlier sweep (the harness's timer, not the suite) found the warps matter at 64M: 8 warps took 75
us against 64-65 with 16. Measured by the harness on one H200 (2026-12-04,
`tools/suite_bench.py --kernels`, fp32): the fastest of the operator's five kernels and ahead of
torch.compile at all four shapes: 64M 64.5 us (events, 1.02x; two_kernel_tree 66.9), 16M 20.6
(events, 1.23x), 1M 5.02 (graph, 1.07x), 4096 3.52 (graph, 1.68x). At 64M the margin is only 2 %.
The arrival counters live on the module instance, one buffer per device, and every launch leaves
them at zero; two launches of the same instance running at once on different streams would share
them, so one instance serves one stream at a time.
On an H100 under the static-compile rule (2026-12-06, session 36,
docs/results/h100-2026-12-06-s36/suite-full/) n = 4096 took 2.90 us against torch.compile's 2.40
(graph); the other three shapes were ahead. Not profiled yet. One guess was ruled out without a GPU:
compiled offline for sm_90 (Triton 3.7.1 and its ptxas), the single program's one-trip loop loads
with plain ld.global, no cp.async staging through shared memory, as a loop-free version does.
That build lacked the divisibility hints a real launch passes; rebuilt with them
(tools/offline_compile.py, session 37) the n = 4096 program still loads with four ld.global.v4 a
thread and no cp.async, in 32 registers.
Session 38 read torch.compile's kernel for that shape from the Inductor cache on the H100: one
program that loops over the 4096 values in 2048-element steps on 16 warps (two loads of four values
a thread, where ours made four on 8 warps in one step). The single program now does the same
(ONE_PROGRAM_BLOCK=2048, ONE_PROGRAM_WARPS=16). Measured by the harness on the H100 (session 38,
`--kernels` joined to session 37's baselines, docs/results/2026-12-06-s38/): n = 4096 2.65 us against
2.40 (graph, 0.91x; was 0.83x), the other shapes unchanged. Still below; not profiled with Nsight.
Session 39 found why (offline sm_90 build, tools/offline_compile.py): with the trip count a runtime
value the compiler kept the loop, so the second 2048-element load of n = 4096 was issued only after
the first trip's add, two DRAM round trips in series. The steps now unroll (TRIPS is a constexpr,
at most BLOCK / ONE_PROGRAM_BLOCK values; the mask is dropped when the steps divide n): both loads
issue back to back, 16 registers. tools/harness_probe.py on an H100 (session 39 call 1, the harness's
interleaved graph timing, which moves in steps of about 0.12 us at this size): 2048 x 16 warps 2.51 us
against torch.compile's 2.39; 2048 x 8 warps 2.39 against 2.39; 1024 x 8 warps 2.39 against 2.51;
4096 x 16 warps 2.51 against 2.51. ONE_PROGRAM_WARPS is now 8.
"""

import torch
import triton
import triton.language as tl

BLOCK = 4096
PROGRAMS_PER_SM = 4
NUM_WARPS = 16
ONE_PROGRAM_BLOCK = 2048
ONE_PROGRAM_WARPS = 8
CPU_SMS = 132  # off CUDA (the interpreter) the grid is sized as for an H100/H200
MAX_PARTIALS = 4096  # the finalizing program reads at most this many partials in one tile

_SM_COUNTS: dict = {}


def _sm_count(device: torch.device) -> int:
    if device.type != "cuda":
        return CPU_SMS
    index = device.index if device.index is not None else torch.cuda.current_device()
    if index not in _SM_COUNTS:
        _SM_COUNTS[index] = torch.cuda.get_device_properties(index).multi_processor_count
    return _SM_COUNTS[index]


@triton.jit
def _sum_one_program(x_ptr, y_ptr, n, BLOCK: tl.constexpr, TRIPS: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for t in tl.static_range(TRIPS):  # unrolled: every load is issued before the first add waits
        idx = t * BLOCK + offs
        if EVEN:
            acc += tl.load(x_ptr + idx).to(tl.float32)
        else:
            acc += tl.load(x_ptr + idx, mask=idx < n, other=0.0).to(tl.float32)
    tl.store(y_ptr, tl.sum(acc, axis=0))


@triton.jit
def _sum_grid_stride(x_ptr, ws_ptr, cnt_ptr, y_ptr, n, n_progs, iters, BLOCK: tl.constexpr, BLOCK_P: tl.constexpr,
                     EVICT: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for i in range(0, iters):
        idx = (i * n_progs + pid).to(tl.int64) * BLOCK + offs  # step i: all programs read adjacent blocks
        acc += tl.load(x_ptr + idx, mask=idx < n, other=0.0, eviction_policy=EVICT).to(tl.float32)
    tl.store(ws_ptr + pid, tl.sum(acc, axis=0))
    tl.debug_barrier()
    arrived = tl.atomic_add(cnt_ptr, 1, sem="acq_rel", scope="gpu")  # release partial, acquire others
    is_last = arrived == n_progs - 1
    p = tl.arange(0, BLOCK_P)
    parts = tl.load(ws_ptr + p, mask=(p < n_progs) & is_last, other=0.0, cache_modifier=".cg")
    tl.store(y_ptr, tl.sum(parts, axis=0), mask=is_last)
    tl.store(cnt_ptr, 0, mask=is_last)  # ready for the next launch


def launch(flat, y, counter, block, n_progs, num_warps, one_block, one_warps, evict=""):
    n = flat.numel()
    n_blocks = triton.cdiv(n, block)
    n_progs = max(1, min(n_progs, n_blocks, MAX_PARTIALS))
    if n_progs == 1:
        trips = triton.cdiv(n, one_block)  # at most BLOCK // ONE_PROGRAM_BLOCK: a few specializations
        _sum_one_program[(1,)](flat, y, n, BLOCK=one_block, TRIPS=trips, EVEN=(n % one_block == 0),
                               num_warps=one_warps)
    else:
        iters = triton.cdiv(n_blocks, n_progs)
        n_progs = triton.cdiv(n_blocks, iters)  # no program without a block
        ws = torch.empty(n_progs, dtype=torch.float32, device=flat.device)
        _sum_grid_stride[(n_progs,)](flat, ws, counter, y, n, n_progs, iters, BLOCK=block,
                                     BLOCK_P=triton.next_power_of_2(n_progs), EVICT=evict, num_warps=num_warps)


class ModelNew(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self._counters: dict = {}  # per device: one int32 arrival counter, kept at zero between launches

    def counter(self, device: torch.device) -> torch.Tensor:
        key = str(device)
        if key not in self._counters:
            self._counters[key] = torch.zeros(1, dtype=torch.int32, device=device)
        return self._counters[key]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        flat = x.reshape(-1).contiguous()
        y = torch.empty((), dtype=torch.float32, device=x.device)
        if flat.numel() == 0:
            return torch.zeros_like(y)
        n_progs = _sm_count(x.device) * PROGRAMS_PER_SM
        # a grid that loops takes all warps; one block per program (1M elements or fewer) half of them
        warps = NUM_WARPS if flat.numel() > n_progs * BLOCK else max(4, NUM_WARPS // 2)
        launch(flat, y, self.counter(x.device), BLOCK, n_progs, warps, min(ONE_PROGRAM_BLOCK, BLOCK), ONE_PROGRAM_WARPS)
        return y
