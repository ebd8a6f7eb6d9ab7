"""Every reference kernel passes the judge on its suite operator (CPU interpreter: correctness on
cpu_shapes and cpu_held_out_shapes, static review, ghost replay, refill and input checks)."""

from pathlib import Path

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.review import review
from aka.spec.kernel import read_kernel_meta
from aka.spec.load import load_op, operator_folder

ROOT = Path(__file__).parents[2]
KERNELS = sorted((ROOT / "reference_kernels").rglob("*.py"))
SUITES = ROOT / "suites"


def op_folder(op: str) -> Path:
    """The one suite folder named `op` (operator names are unique across suites)."""
    folder = operator_folder(SUITES, op)
    assert folder is not None, f"operator {op!r} is in no suite"
    return folder


def test_there_are_kernels_for_the_harness_operators():
    ops = {read_kernel_meta(k).op for k in KERNELS}
    assert {"rmsnorm", "fused_add_rmsnorm", "silu_and_mul", "softmax"} <= ops


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_reference_kernel_passes_static_review(kernel):
    assert review(kernel.read_text(), str(kernel)) == []


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_reference_kernel_is_accepted_by_the_harness(evaluator, kernel):
    meta = read_kernel_meta(kernel)
    if "gpu" in meta.requires:
        pytest.skip(f"needs a GPU: {meta.requires_reason}")
    spec = load_op(op_folder(meta.op))
    result = evaluator.evaluate(spec, kernel, EvalOptions(time=False, timeout_s=120))
    assert result.accepted, [str(r) for r in result.rejections]
    assert any(s.held_out and s.correct for s in result.shapes), "held-out shapes must run too"
