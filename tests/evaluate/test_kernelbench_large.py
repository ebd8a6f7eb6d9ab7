"""The KernelBench problems at published level-1 sizes (suites/kernelbench-large) and their Triton
candidates: each problem file is copied with small sizes and judged on the CPU interpreter."""

import re
import shutil
import tempfile
from pathlib import Path
from typing import NamedTuple

import pytest

from aka.batch.suite import discover
from aka.batch.tasks import find_candidate
from aka.evaluate.evaluator import EvalOptions
from aka.spec.load import load_op
from aka.spec.result import EvalStatus

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "suites" / "kernelbench-large"
CANDS = SUITE / "candidates"
FAST = EvalOptions(time=False, timeout_s=120)
LN_RANDOM_AFFINE = ("        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)\n",
                    "        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)\n"
                    "        nn.init.normal_(self.ln.weight)\n        nn.init.normal_(self.ln.bias)\n")


class Case(NamedTuple):
    problem: str
    sizes: dict
    """Small values of the problem's module-level size constants."""
    cand_consts: dict = {}
    """Candidate constants (block sizes) set small, so the multi-block paths run."""
    draw: str | None = None
    """Replaces the `x = torch.rand(...)` draw (values the tolerance can see, ties, signs)."""
    patch: tuple[str, str] | None = None
    """(text, replacement) in the problem's source."""


CASES = {
    "relu-masked": Case("19_ReLU", {"batch_size": 4, "dim": 1000}),
    "relu-even": Case("19_ReLU", {"batch_size": 2, "dim": 16384}, {"BLOCK": 4096}),
    # rows longer than one block, a masked tail, and values spread enough that atol does not hide errors
    "softmax-long-rows": Case("23_Softmax", {"batch_size": 4, "dim": 20000}, draw="torch.randn(batch_size, dim) * 4"),
    "softmax-even-blocks": Case("23_Softmax", {"batch_size": 4, "dim": 1024}, {"BLOCK_N": 256}),
    "logsoftmax-long-rows": Case("24_LogSoftmax", {"batch_size": 3, "dim": 20000},
                                 draw="torch.randn(batch_size, dim) * 4"),
    "logsoftmax-even-blocks": Case("24_LogSoftmax", {"batch_size": 4, "dim": 1024}, {"BLOCK_N": 256}),
    "gelu-signed-masked": Case("26_GELU_", {"batch_size": 3, "dim": 1000}, draw="torch.randn(batch_size, dim) * 3"),
    "gelu-even": Case("26_GELU_", {"batch_size": 2, "dim": 8192}, {"BLOCK": 4096}),
    "rmsnorm-small": Case("36_RMSNorm_", {"batch_size": 2, "dim1": 8, "dim2": 8}),
    "rmsnorm-even": Case("36_RMSNorm_", {"batch_size": 2, "dim1": 16, "dim2": 16}),
    "rmsnorm-odd-channels": Case("36_RMSNorm_", {"batch_size": 3, "features": 48, "dim1": 16, "dim2": 20},
                                 draw="torch.randn(batch_size, features, dim1, dim2)"),
    # rows of several blocks with a masked tail; signed values so the outputs are far above atol
    "l2norm-masked": Case("39_L2Norm_", {"batch_size": 4, "dim": 5000}, {"BLOCK_N": 1024},
                          draw="torch.randn(batch_size, dim) * 0.02"),
    # several chunks per row, a masked last chunk, and a weight and bias that are not 1 and 0
    "layernorm-chunks-affine": Case("40_LayerNorm", {"batch_size": 3, "features": 4, "dim1": 16, "dim2": 20},
                                    {"CHUNK": 256, "BLOCK": 64}, draw="torch.rand(batch_size, features, dim1, dim2) + 3",
                                    patch=LN_RANDOM_AFFINE),
    "sum-dim1": Case("47_Sum_reduction_over_a_dimension", {"batch_size": 3, "dim1": 70, "dim2": 150}),
    "max-dim1-signed": Case("49_Max_reduction_over_a_dimension", {"batch_size": 3, "dim1": 70, "dim2": 150},
                            draw="torch.randn(batch_size, dim1, dim2)"),
    "argmax-dim1": Case("51_Argmax_over_a_dimension", {"batch_size": 3, "dim1": 70, "dim2": 150}),
    # four distinct values: nearly every column's maximum is tied, so the first-index rule is checked
    "argmax-ties": Case("51_Argmax_over_a_dimension", {"batch_size": 2, "dim1": 45, "dim2": 130},
                        draw="torch.randint(0, 4, (batch_size, dim1, dim2)).float()"),
}
PUBLISHED = {
    "19_ReLU": {"batch_size": 4096, "dim": 393216},
    "23_Softmax": {"batch_size": 4096, "dim": 393216},
    "24_LogSoftmax": {"batch_size": 4096, "dim": 393216},
    "26_GELU_": {"batch_size": 4096, "dim": 393216},
    "36_RMSNorm_": {"batch_size": 112, "features": 64, "dim1": 512, "dim2": 512},
    "39_L2Norm_": {"batch_size": 32768, "dim": 65535},
    "40_LayerNorm": {"batch_size": 16, "features": 64, "dim1": 256, "dim2": 256},
    "47_Sum_reduction_over_a_dimension": {"batch_size": 128, "dim1": 4096, "dim2": 4095, "reduce_dim": 1},
    "49_Max_reduction_over_a_dimension": {"batch_size": 128, "dim1": 4096, "dim2": 4095},
    "51_Argmax_over_a_dimension": {"batch_size": 128, "dim1": 4096, "dim2": 4095},
}


def with_constants(source: str, values: dict[str, int]) -> str:
    """`source` with each module-level `NAME = <int>` line set to the given value."""
    for name, value in values.items():
        source, n = re.subn(rf"^{name} = \d+$", f"{name} = {value}", source, flags=re.M)
        assert n == 1, f"no single `{name} = <int>` line"
    return source


@pytest.fixture
def readable_dir():
    """A folder the evaluation's confined process can read (pytest's tmp_path is private to its user)."""
    path = Path(tempfile.mkdtemp(prefix="aka-kb-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def small_copy(tmp_path: Path, case: str) -> tuple[Path, Path]:
    c = CASES[case]
    src = with_constants((SUITE / f"{c.problem}.py").read_text(), c.sizes)
    if c.draw:
        src, n = re.subn(r"x = torch\.rand\w*\(.*\)", f"x = {c.draw}", src)
        assert n == 1
    if c.patch:
        assert src.count(c.patch[0]) == 1, c.patch[0]
        src = src.replace(*c.patch)
    prob = tmp_path / f"{c.problem}.py"
    prob.write_text(src)
    prob.chmod(0o644)
    cand_path = CANDS / f"{c.problem}.py"
    if c.cand_consts:
        cand_path = tmp_path / f"cand_{c.problem}.py"
        cand_path.write_text(with_constants((CANDS / f"{c.problem}.py").read_text(), c.cand_consts))
        cand_path.chmod(0o644)
    return prob, cand_path


@pytest.mark.parametrize("problem", sorted(PUBLISHED))
def test_problem_files_carry_the_published_sizes(problem):
    path = SUITE / f"{problem}.py"
    spec = load_op(path)
    assert spec.kernelbench and spec.dtype == "float32" and [s.id for s in spec.shapes] == ["default"]
    src = path.read_text()
    for name, value in PUBLISHED[problem].items():
        assert re.search(rf"^{name} = {value}$", src, flags=re.M), name
    assert ".cuda(" not in src and "device=" not in src


def test_every_problem_is_listed_and_has_a_candidate_the_batch_finds():
    suite = discover(SUITE)
    assert sorted(o.name for o in suite.operators) == sorted(PUBLISHED)
    for op in suite.operators:
        found = find_candidate(CANDS, op)
        assert found == CANDS / f"{op.name}.py", op.name
    assert {c.problem for c in CASES.values()} == set(PUBLISHED)


@pytest.mark.parametrize("case", sorted(CASES))
def test_candidate_is_accepted_on_small_sizes(evaluator, readable_dir, case):
    prob, cand = small_copy(readable_dir, case)
    result = evaluator.evaluate(load_op(prob), cand, FAST)
    assert result.status is EvalStatus.ACCEPTED, [str(r) for r in result.rejections]
    shape = result.shapes[0]
    assert shape.correct and shape.trials >= 3
    assert result.mode == "cpu-interpreter"


# (case, text in the candidate, its wrong replacement): the small cases see these mistakes
MISTAKES = {
    "argmax-last-of-ties": ("argmax-ties", "better = x > best", "better = x >= best"),
    "layernorm-bias-dropped": ("layernorm-chunks-affine", "y = (x - mean) * rstd * w + b", "y = (x - mean) * rstd * w"),
}


@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_the_small_cases_catch_a_wrong_candidate(evaluator, readable_dir, mistake):
    case, text, wrong = MISTAKES[mistake]
    prob, cand = small_copy(readable_dir, case)
    src = cand.read_text()
    assert src.count(text) == 1
    bad = readable_dir / "bad_candidate.py"
    bad.write_text(src.replace(text, wrong))
    bad.chmod(0o644)
    result = evaluator.evaluate(load_op(prob), bad, FAST)
    assert result.status is EvalStatus.WRONG
    assert [r.rule for r in result.rejections] == ["wrong-output"]
