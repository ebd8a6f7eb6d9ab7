"""The behavioural descriptors, computed from source, against every reference kernel's front matter."""

from pathlib import Path

import pytest

from aka.propose.descriptors import (AXES, bottleneck_class, declared, describe, front_matter_space, reach,
                                     region)
from aka.spec.kernel import read_kernel_meta
from aka.spec.result import EvalResult, EvalStatus, Roofline, ShapeResult, Timing

KERNELS = Path(__file__).parents[2] / "reference_kernels"

PIPELINED = "launches with num_stages > 1 (software pipelining) but its techniques do not say so"
ROW_TILE = "a tile of several rows/tokens per program at some point of its space, not declared"
FRONT_MATTER_GAPS = {
    "embedding/token_tile_2d.py": ({"parallel": (0, 1)}, ROW_TILE),
    "fp8_block_scaled_gemm/split_k_block_scaled.py": ({"memory": (2, 3)}, PIPELINED),
    "fused_add_rmsnorm/latency_rows.py": ({"parallel": (0, 1)}, ROW_TILE + " (its layernorm twin declares it)"),
    "fused_add_rmsnorm/persistent_rows.py": ({"memory": (1, 3)}, PIPELINED),
    "fused_moe_grouped_gemm/atomic_align_grouped.py": ({"memory": (2, 3), "parallel": (0, 2)},
                                                       PIPELINED + "; its counting kernel's per-expert counts are "
                                                       "partial results the GEMM kernel reads"),
    "fused_moe_grouped_gemm/stable_align_grouped.py": ({"memory": (2, 3), "parallel": (0, 2)},
                                                       PIPELINED + "; its counting kernel's per-expert counts are "
                                                       "partial results the next kernel reads"),
    "matmul_bf16/split_k_atomic.py": ({"memory": (2, 3)}, PIPELINED),
    "matmul_bf16/tma_warp_specialized.py": ({"compute": (2, 3)}, "runs tl.dot tiles; tensor-cores not listed"),
    "matmul_fp32/tiled_row_major.py": ({"memory": (2, 3)}, PIPELINED),
    "pad_2d/interior_copy_border_fill.py": ({"compute": (0, 2)}, "'two-kernel', but the border kernel only "
                                            "writes: no intermediate passes through memory"),
    "prefill_attention_causal/flash_tiled.py": ({"memory": (2, 3)}, PIPELINED),
    "rmsnorm/latency_rows.py": ({"parallel": (0, 1)}, ROW_TILE + " (its layernorm twin declares it)"),
    "rmsnorm/persistent_rows.py": ({"memory": (1, 3)}, PIPELINED),
    "rotary_embedding_neox/flat_head_rows.py": ({"parallel": (0, 1)}, ROW_TILE),
    "sort_rows/rank_by_counting.py": ({"parallel": (0, 1)}, ROW_TILE),
    "vector_norm_l2/one_pass_sum_squares.py": ({"parallel": (0, 1)}, ROW_TILE + " (ROWS above 1)"),
}
"""Kernels whose front matter under-declares what their code does: (axis -> (declared, found), why).
Kept exact: a kernel that comes to agree must leave this list."""


def _space(meta):
    return {k: tuple(p.values) for k, p in meta.params.items()}


@pytest.mark.parametrize("path", sorted(p.relative_to(KERNELS).as_posix() for p in KERNELS.rglob("*.py")))
def test_every_reference_kernel_lands_in_the_cell_its_front_matter_declares(path):
    meta = read_kernel_meta(KERNELS / path)
    found = reach((KERNELS / path).read_text(), _space(meta))
    expected = declared(meta.techniques, meta.strategy)
    diff = {axis: (expected[i], found.levels[i]) for i, axis in enumerate(AXES) if expected[i] != found.levels[i]}
    known, why = FRONT_MATTER_GAPS.get(path, ({}, ""))
    assert diff == known, f"{path}: declared {expected}, found {found.levels} ({found.evidence}); {why}"


def test_most_kernels_agree_on_every_axis():
    total = len(list(KERNELS.rglob("*.py")))
    assert total >= 100 and len(FRONT_MATTER_GAPS) <= 0.12 * total


def test_a_parameter_can_move_a_kernel_between_levels():
    source = (KERNELS / "layernorm" / "latency_rows.py").read_text()
    assert describe(source, {"XBLOCK": 1}).parallel == 0
    several = describe(source, {"XBLOCK": 4})
    assert several.parallel == 1 and "XBLOCK" in several.evidence["parallel"]
    persistent = describe((KERNELS / "rmsnorm" / "persistent_rows.py").read_text(), {"NUM_STAGES": 1})
    assert persistent.parallel == 2 and persistent.memory == 1          # eviction hints, no pipelining


def test_levels_of_distinct_strategies():
    read = lambda rel: describe((KERNELS / rel).read_text())  # noqa: E731
    assert read("softmax/three_pass.py").compute == 1                   # sweeps the row three times
    assert read("softmax/split_row_two_kernels.py").levels[1:] == (0, 2)    # partials through memory, split
    assert read("matmul_bf16/tma_warp_specialized.py").levels == (3, 3, 3)
    assert read("transpose_2d/tiled.py").memory == 2                     # tile transposed on chip
    assert read("rmsnorm/persistent_prefetch.py").memory == 3            # next tile loaded ahead


def test_unreadable_source_gets_the_base_levels():
    d = describe("def broken(:\n")
    assert d.levels == (0, 2, 0) and "not valid Python" in d.evidence["memory"]


def test_parameter_regions():
    space = front_matter_space((KERNELS / "rmsnorm" / "persistent_prefetch.py").read_text())
    assert space["PROGRAMS_PER_SM"] == (1, 2, 4, 8)
    assert region(space, {"ROWS": 1, "PROGRAMS_PER_SM": 1, "ELEMS_PER_THREAD": 8}) == "lo"
    assert region(space, {"ROWS": 2, "PROGRAMS_PER_SM": 8, "ELEMS_PER_THREAD": 32}) == "hi"
    assert region({}, {"X": 1}) == "lo" and front_matter_space("x = 1\n") == {}


def _gpu_result(us, sol, adjusted, basis="roofline", flops=1e6, nbytes=1e9):
    roof = Roofline(flops={"bfloat16": flops}, bytes=nbytes, t_roof_us=sol * us, sol=sol, sol_launch_adjusted=adjusted,
                    basis=basis)
    shape = ShapeResult(id="s", params={}, correct=True, time=Timing(us, 0.0, 0.0, 10, "events"), roofline=roof)
    return EvalResult(status=EvalStatus.ACCEPTED, op="x", candidate="c.py", candidate_sha256="0", mode="gpu",
                      dtype="bfloat16", shapes=[shape], device={"name": "NVIDIA H200"})


def test_bottleneck_class_from_profile_roofline_or_nothing():
    assert bottleneck_class({"bottleneck": {"kind": "compute-bound"}}, None, False, {})[0] == "compute-bound"
    assert bottleneck_class(None, _gpu_result(100.0, 0.9, 0.91), True, {})[0] == "unprofiled"
    assert bottleneck_class(None, _gpu_result(100.0, 0.9, 0.91), False, {})[0] == "memory-bound"
    assert bottleneck_class(None, _gpu_result(3.0, 0.05, 0.8), False, {})[0] == "launch-bound"
    assert bottleneck_class(None, _gpu_result(100.0, 0.3, 0.31), False, {})[0] == "latency-bound"
    dense = _gpu_result(100.0, 0.8, 0.81, flops=1e15, nbytes=1e6)
    assert bottleneck_class(None, dense, False, {})[0] == "compute-bound"
    dense.device = {}                                                    # no datasheet: the intensity decides
    assert bottleneck_class(None, dense, False, {})[0] == "compute-bound"


INLINE_TWO_SWEEPS = '''
@triton.jit
def norm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = 0.0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.sum(tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0))
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * n + offs, mask=offs < n, other=0.0)
        tl.store(y_ptr + row * n + offs, v / acc, mask=offs < n)

def forward(x, y, n):
    norm_kernel[(x.shape[0],)](x, y, n, BLOCK=1024)
'''

HELPER_TWO_SWEEPS = '''
@triton.jit
def _sweep_sum(src_ptr, n, BLOCK: tl.constexpr):
    acc = 0.0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.sum(tl.load(src_ptr + offs, mask=offs < n, other=0.0))
    return acc

@triton.jit
def _sweep_scale(src_ptr, dst_ptr, n, scale, BLOCK: tl.constexpr):
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        v = tl.load(src_ptr + offs, mask=offs < n, other=0.0)
        tl.store(dst_ptr + offs, v / scale, mask=offs < n)

@triton.jit
def norm_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    acc = _sweep_sum(x_ptr + row * n, n, BLOCK)
    _sweep_scale(x_ptr + row * n, y_ptr + row * n, n, acc, BLOCK)

def forward(x, y, n):
    norm_kernel[(x.shape[0],)](x, y, n, BLOCK=1024)
'''


def test_a_kernel_is_credited_with_its_helpers_loads_on_its_own_arguments():
    inline, helpers = describe(INLINE_TWO_SWEEPS), describe(HELPER_TWO_SWEEPS)
    assert inline.compute == helpers.compute == 1
    assert helpers.evidence["compute"] == "norm_kernel sweeps x_ptr more than once"
    one_helper = HELPER_TWO_SWEEPS.replace("    acc = _sweep_sum(x_ptr + row * n, n, BLOCK)\n", "    acc = 1.0\n")
    assert describe(one_helper).compute == 2                            # one sweep left: read once


def test_a_helper_called_twice_is_two_sweeps_and_its_stores_count_for_the_caller():
    twice = HELPER_TWO_SWEEPS.replace("    acc = _sweep_sum(x_ptr + row * n, n, BLOCK)\n",
                                      "    _sweep_scale(x_ptr + row * n, y_ptr + row * n, n, 2.0, BLOCK)\n    acc = 1.0\n")
    assert describe(twice).evidence["compute"] == "norm_kernel sweeps x_ptr more than once"
    chained = HELPER_TWO_SWEEPS + '''
@triton.jit
def second_kernel(y_ptr, z_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(z_ptr + offs, tl.load(y_ptr + offs))

def forward2(x, y, z, n):
    norm_kernel[(1,)](x, y, n, BLOCK=1024)
    second_kernel[(1,)](y, z, n, BLOCK=1024)
'''
    found = describe(chained)                                        # y is written only inside a helper
    assert found.compute == 0 and found.evidence["compute"] == "norm_kernel writes y, second_kernel reads it"


def test_offsets_a_caller_passes_make_a_helpers_load_a_vector():
    source = '''
@triton.jit
def _load_at(base_ptr, offs, n):
    return tl.load(base_ptr + offs, mask=offs < n, other=0.0)

@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, _load_at(x_ptr, offs, n), mask=offs < n)

@triton.jit
def reread_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(y_ptr + offs) + _load_at(x_ptr, offs, n), mask=offs < n)

def forward(x, y, n):
    copy_kernel[(1,)](x, y, n, BLOCK=1024)
    reread_kernel[(1,)](x, y, n, BLOCK=1024)
'''
    found = describe(source)                 # copy_kernel's only vector load is the helper's, on x
    assert found.compute == 0 and found.evidence["compute"] == "copy_kernel writes y, reread_kernel reads it"


EARLY_RETURN = '''
@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)

def forward(x, y, n):
    if n <= 1024:
        copy_kernel[(1,)](x, y, n, BLOCK=1024)
        return y
    copy_kernel[(n // 1024,)](x, y, n, BLOCK=1024)
    return y
'''


def test_a_launch_after_an_if_that_returns_never_runs_with_the_launch_inside_it():
    assert describe(EARLY_RETURN).compute == 2                           # one of the two runs, reading x once
    both = EARLY_RETURN.replace("        return y\n", "")                 # no early exit: both run, one after the other
    assert describe(both).evidence["compute"] == "copy_kernel and copy_kernel both run, one after the other"
    raising = EARLY_RETURN.replace("        return y\n", "        raise ValueError(n)\n")
    assert describe(raising).compute == 2
