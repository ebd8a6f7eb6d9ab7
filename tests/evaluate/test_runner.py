"""The candidate's process side, driven in this process (CPU interpreter): a second call whose
output is bit for bit the first's hands over nothing; any difference, even in a reused buffer, is
handed over in full."""

import os
import shutil

import torch

from aka.evaluate.runner import Runner, _same_output

from .conftest import CANDIDATES


def _runner(tmp_path, fixture_op, candidate):
    shutil.copy(CANDIDATES / candidate, tmp_path / "candidate.py")
    r = Runner(str(tmp_path))
    r.load({"spec": fixture_op.to_dict(), "device": "cpu", "dtype": "float32", "candidate": str(tmp_path / "candidate.py")})
    params = fixture_op.run_shapes(True)[0][0].params
    r.build({"shape": 0, "params": params, "seed": 1})
    return r, params


def _files(tmp_path, name):
    return sorted(p for p in os.listdir(tmp_path) if p.startswith(name + ".") or p.startswith(name + "-mut."))


def test_an_identical_second_output_is_not_handed_over(tmp_path, fixture_op):
    r, params = _runner(tmp_path, fixture_op, "honest_rmsnorm.py")
    r.call({"shape": 0, "params": params, "seed": 5, "name": "t0c0", "retain": True})
    assert _files(tmp_path, "t0c0")
    seen = r.call({"shape": 0, "params": params, "seed": 5, "name": "t0c1", "same_as": "t0c0"})
    assert seen["same_as"] == "t0c0" and not _files(tmp_path, "t0c1")
    assert not r.retained


def test_a_changed_output_in_a_reused_buffer_is_handed_over(tmp_path, fixture_op):
    r, params = _runner(tmp_path, fixture_op, "bad_drifting_output.py")
    r.call({"shape": 0, "params": params, "seed": 5, "name": "t0c0", "retain": True})
    seen = r.call({"shape": 0, "params": params, "seed": 5, "name": "t0c1", "same_as": "t0c0"})
    assert "same_as" not in seen and _files(tmp_path, "t0c1")


def test_a_same_as_naming_no_retained_output_hands_over(tmp_path, fixture_op):
    r, params = _runner(tmp_path, fixture_op, "honest_rmsnorm.py")
    seen = r.call({"shape": 0, "params": params, "seed": 5, "name": "t0c1", "same_as": "t0c0"})
    assert "same_as" not in seen and _files(tmp_path, "t0c1")


def test_same_output_needs_the_same_structure_and_bits():
    a = torch.tensor([1.0, float("nan")])
    assert _same_output((a, 2), (a.clone(), 2))
    assert not _same_output((a, 2), [a.clone(), 2])            # a list is not the tuple the judge saw
    assert not _same_output(a, a.to(torch.float64))
    assert not _same_output(a, torch.tensor([1.0, 0.0]))
    assert not _same_output({"y": a}, {"z": a})
