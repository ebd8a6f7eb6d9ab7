"""Suites are read as they are: aka op.yaml folders, KernelBench checkouts and level folders,
Atrex-Bench checkouts (weights from operator_importance.json), with an optional suite.yaml."""

import json
import shutil

import pytest

from aka.batch.suite import discover
from aka.batch.tasks import find_candidate
from aka.errors import InputError, SpecError

from .conftest import ATREX, KERNELBENCH, REPO


def test_aka_suite_lists_op_yaml_folders():
    suite = discover(REPO / "suites" / "llm-inference")
    assert suite.kind == "aka" and suite.weight_source == "equal"
    names = [o.name for o in suite.operators]
    assert "rmsnorm" in names and names == sorted(names)
    assert all(o.form == "op.yaml" for o in suite.operators)


def test_kernelbench_checkout_and_level_folder():
    checkout = discover(KERNELBENCH)
    assert checkout.kind == "kernelbench"
    assert [o.name for o in checkout.operators] == ["level1-1_ReLU", "level1-2_ScaleShift", "level1-3_BrokenInputs"]
    level = discover(KERNELBENCH / "KernelBench" / "level1")
    assert [o.name for o in level.operators] == ["1_ReLU", "2_ScaleShift", "3_BrokenInputs"]
    relu = checkout.operator("level1-1_ReLU")
    assert find_candidate(KERNELBENCH / "candidates", relu).name == "1_ReLU.py"   # named without the level


def test_published_kernelbench_suite_skips_its_candidates_folder():
    suite = discover(REPO / "suites" / "kernelbench-large")
    assert suite.kind == "kernelbench" and len(suite.operators) == 10


def test_atrex_weights_from_metadata_and_production_times():
    suite = discover(ATREX)
    assert suite.kind == "atrex" and suite.weight_source == "metadata.json"
    assert {o.name: o.weight for o in suite.operators} == {"add_rms_norm": 0.25, "silu_mul": 0.75}
    assert suite.operator("silu_mul").phase == "decode"


def test_atrex_operator_importance_json_wins_and_is_normalized(tmp_path):
    root = tmp_path / "atrex"
    shutil.copytree(ATREX, root)
    (root / "data" / "operator_importance.json").write_text(json.dumps(
        {"metadata": {"num_profiles": 3}, "operators": {"silu_mul": {"importance_score": 3.0, "phase": "prefill"},
                                                        "add_rms_norm": {"importance_score": 1.0}}}))
    meta = json.loads((root / "data" / "silu_mul" / "metadata.json").read_text())
    meta["shapes"]["decode-small"]["production_performance"] = {"H200": {"performance_us": 2.0, "framework": "x"}}
    (root / "data" / "silu_mul" / "metadata.json").write_text(json.dumps(meta))
    suite = discover(root)
    assert suite.weight_source == "operator_importance.json"
    assert suite.operator("silu_mul").weight == 3.0 and suite.operator("silu_mul").phase == "prefill"
    assert suite.operator("silu_mul").production_us == {"H200": {"decode-small": 2.0}}
    from aka.batch.score import normalized_weights

    weights, info = normalized_weights(suite)
    assert weights == {"add_rms_norm": 0.25, "silu_mul": 0.75}
    assert any("sum to 4, not 1: normalized to 1" in n for n in info["notes"])


def test_suite_yaml_weights_phases_budget_and_subset(tmp_path):
    root = tmp_path / "s"
    for name in ("rmsnorm", "silu_and_mul", "softmax"):
        shutil.copytree(REPO / "suites" / "llm-inference" / name, root / name)
    (root / "suite.yaml").write_text("name: mine\nweights: {rmsnorm: 2, silu_and_mul: 1}\n"
                                     "phases: {rmsnorm: decode}\nbudget: {iterations: 4}\n"
                                     "operators: [rmsnorm, silu_and_mul]\n")
    suite = discover(root)
    assert suite.name == "mine" and suite.weight_source == "suite.yaml" and suite.budget == {"iterations": 4}
    assert [(o.name, o.weight, o.phase) for o in suite.operators] == [("rmsnorm", 2.0, "decode"),
                                                                       ("silu_and_mul", 1.0, "any")]


@pytest.mark.parametrize("text, field", [
    ("weigths: {}\n", "weigths"),
    ("weights: {nope: 1}\n", "weights.nope"),
    ("weights: {rmsnorm: -1}\n", "weights.rmsnorm"),
    ("phases: {rmsnorm: lunch}\n", "phases.rmsnorm"),
])
def test_bad_suite_yaml_names_the_field(tmp_path, text, field):
    shutil.copytree(REPO / "suites" / "llm-inference" / "rmsnorm", tmp_path / "rmsnorm")
    (tmp_path / "suite.yaml").write_text(text)
    with pytest.raises(SpecError) as err:
        discover(tmp_path)
    assert err.value.field == field


def test_not_a_suite(tmp_path):
    with pytest.raises(InputError, match="not a suite"):
        discover(tmp_path)
    with pytest.raises(InputError, match="no such suite folder"):
        discover(tmp_path / "missing")
