"""Problems too large for the device are the device's limit (exit 3), reference failures are the
operator's (exit 2), and a candidate that allocates beyond its share is its own failure."""

import json
import subprocess
import sys

import pytest

from aka.errors import EnvironmentMissing, SpecError
from aka.evaluate.evaluator import EvalOptions
from aka.spec.load import load_op

from .conftest import CANDIDATES, FIXTURE_OP

HUGE = '''
import torch
import torch.nn as nn

N = 200_000


class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.rand(N, N)]


def get_init_inputs():
    return []
'''

RAISING = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


def get_inputs():
    raise ValueError("the reference cannot make its inputs")


def get_init_inputs():
    return []
'''


def test_a_problem_larger_than_the_device_is_refused_before_anything_is_allocated(evaluator, tmp_path):
    problem = tmp_path / "huge_relu.py"
    problem.write_text(HUGE)
    with pytest.raises(EnvironmentMissing, match=r"too small for this problem.*149\.0 GiB"):
        evaluator.evaluate(load_op(problem), CANDIDATES / "honest_rmsnorm.py", EvalOptions(time=False))


def test_the_footprint_refusal_is_exit_3_with_one_json_document(tmp_path):
    problem = tmp_path / "huge_relu.py"
    problem.write_text(HUGE)
    out = subprocess.run([sys.executable, "-m", "aka", "eval", str(problem), str(CANDIDATES / "honest_rmsnorm.py"),
                          "--device", "cpu", "--json", "--no-time"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 3, out.stderr
    doc = json.loads(out.stdout)
    assert doc["ok"] is False and doc["exit_code"] == 3 and "GiB" in doc["message"]


def test_a_reference_that_raises_is_the_operators_fault(evaluator, tmp_path):
    problem = tmp_path / "raising.py"
    problem.write_text(RAISING)
    with pytest.raises(SpecError) as err:
        evaluator.evaluate(load_op(problem), CANDIDATES / "honest_rmsnorm.py", EvalOptions(time=False))
    line = RAISING.splitlines().index('    raise ValueError("the reference cannot make its inputs")') + 1
    assert err.value.path == str(problem.resolve()) and err.value.line == line
    assert "cannot make its inputs" in str(err.value)


def test_a_candidate_allocating_beyond_its_share_is_out_of_memory(evaluator, fixture_op, tmp_path):
    src = (CANDIDATES / "honest_rmsnorm.py").read_text().replace(
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n",
        "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
        "        hog = torch.empty(64 * 2**30, dtype=torch.uint8)\n")
    cand = tmp_path / "hog.py"
    cand.write_text(src)
    result = evaluator.evaluate(fixture_op, cand, EvalOptions(time=False, memory_limit_gb=4))
    assert not result.accepted
    assert result.rejections[0].rule == "out-of-memory", [str(r) for r in result.rejections]
    assert "68719476736" in result.rejections[0].message or "64" in result.rejections[0].message
