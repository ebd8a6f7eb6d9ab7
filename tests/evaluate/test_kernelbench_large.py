"""The KernelBench problems at published level-1 sizes (suites/kernelbench-large) and their Triton
candidates: each problem file is copied with small sizes and judged on the CPU interpreter."""

import re
import shutil
import tempfile
from pathlib import Path

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.spec.load import load_op
from aka.spec.result import EvalStatus

ROOT = Path(__file__).parents[2]
SUITE = ROOT / "suites" / "kernelbench-large"
CANDS = SUITE / "candidates"
FAST = EvalOptions(time=False, timeout_s=120)

# (problem, candidate, small size constants, candidate constants, input draw replaced)
CASES = {
    "relu-masked": ("19_ReLU", "relu", {"batch_size": 4, "dim": 1000}, {}, None),
    "relu-even": ("19_ReLU", "relu", {"batch_size": 2, "dim": 16384}, {"BLOCK": 4096}, None),
    # rows longer than one block, a masked tail, and values spread enough that atol does not hide errors
    "softmax-long-rows": ("23_Softmax", "softmax", {"batch_size": 4, "dim": 20000}, {},
                          "torch.randn(batch_size, dim) * 4"),
    "softmax-even-blocks": ("23_Softmax", "softmax", {"batch_size": 4, "dim": 1024}, {"BLOCK_N": 256}, None),
    "rmsnorm-small": ("36_RMSNorm_", "rmsnorm", {"batch_size": 2, "dim1": 8, "dim2": 8}, {}, None),
    "rmsnorm-even": ("36_RMSNorm_", "rmsnorm", {"batch_size": 2, "dim1": 16, "dim2": 16}, {}, None),
    "rmsnorm-odd-channels": ("36_RMSNorm_", "rmsnorm", {"batch_size": 3, "features": 48, "dim1": 16, "dim2": 20},
                             {}, "torch.randn(batch_size, features, dim1, dim2)"),
}
PUBLISHED = {
    "19_ReLU": {"batch_size": 4096, "dim": 393216},
    "23_Softmax": {"batch_size": 4096, "dim": 393216},
    "36_RMSNorm_": {"batch_size": 112, "features": 64, "dim1": 512, "dim2": 512},
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
    problem, cand, sizes, cand_consts, draw = CASES[case]
    src = with_constants((SUITE / f"{problem}.py").read_text(), sizes)
    if draw:
        src, n = re.subn(r"x = torch\.rand\w*\(.*\)", f"x = {draw}", src)
        assert n == 1
    prob = tmp_path / f"{problem}.py"
    prob.write_text(src)
    prob.chmod(0o644)
    cand_path = CANDS / f"{cand}.py"
    if cand_consts:
        cand_path = tmp_path / f"{cand}.py"
        cand_path.write_text(with_constants((CANDS / f"{cand}.py").read_text(), cand_consts))
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


@pytest.mark.parametrize("case", sorted(CASES))
def test_candidate_is_accepted_on_small_sizes(evaluator, readable_dir, case):
    prob, cand = small_copy(readable_dir, case)
    result = evaluator.evaluate(load_op(prob), cand, FAST)
    assert result.status is EvalStatus.ACCEPTED, [str(r) for r in result.rejections]
    shape = result.shapes[0]
    assert shape.correct and shape.trials >= 3
    assert result.mode == "cpu-interpreter"
