"""A kernel borrowed from another package: refused by the import allowlist, and — should one arrive
past the review — still caught at run time by ghost replay (defence in depth)."""

from aka.evaluate.evaluator import EvalOptions
from aka.spec.result import EvalStatus

from .conftest import CANDIDATES

BORROWED = CANDIDATES / "cheat_borrowed_kernel.py"


def test_the_static_review_refuses_the_import(evaluator, fixture_op):
    result = evaluator.evaluate(fixture_op, BORROWED, EvalOptions(time=False, timeout_s=60))
    assert result.status is EvalStatus.CHEAT
    first = result.rejections[0]
    assert (first.rule, first.line) == ("import-not-allowed", 6), [str(r) for r in result.rejections]
    assert "reference_kernels.rmsnorm.one_row_registers" in first.message


def test_ghost_replay_still_catches_it_with_the_review_off(evaluator, fixture_op):
    result = evaluator.evaluate(fixture_op, BORROWED, EvalOptions(time=False, timeout_s=60, review=False))
    assert result.status is EvalStatus.CHEAT
    assert result.rejections[0].rule == "ghost-replay", [str(r) for r in result.rejections]
    assert result.rejections[0].shape == "cpu-a"
