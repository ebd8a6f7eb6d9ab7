"""Per-shape dispatchers: built from two reference kernels, judged by the real harness."""

import ast
from pathlib import Path

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.review import review
from aka.propose.dispatch import Bucket, _prefixed, build_dispatcher
from aka.spec.candidate import Candidate
from aka.spec.load import load_op

ROOT = Path(__file__).parents[2]
KERNELS = ROOT / "reference_kernels" / "rmsnorm"


def _variant(name, params):
    return Candidate((KERNELS / name).read_text(), params, origin="tuner", name=f"rmsnorm/{name}",
                     family=f"rmsnorm/{name}")


def _dispatcher():
    v0 = _variant("blocked_columns.py", {"BLOCK_N": 256})
    v1 = _variant("multi_row_tile.py", {"ROWS_PER_PROGRAM": 2})
    buckets = [Bucket("cpu-small", ((4, 96),), 0), Bucket("cpu-odd", ((3, 200),), 1),
               Bucket("cpu-long", ((2, 2500),), 0)]
    return build_dispatcher([v0, v1], buckets, "rmsnorm", parent="p")


def test_renaming_keeps_arguments_that_shadow_module_constants():
    src = ("import triton\nBLOCK_N = 64\n\n@triton.jit\ndef k(x, BLOCK_N: 'c'):\n    return BLOCK_N\n\n"
           "def host():\n    return k(1, BLOCK_N=BLOCK_N)\n")
    imports, body = _prefixed(src, "_v0_", "t")
    assert imports == ["import triton"]
    assert "def _v0_k(x, BLOCK_N: 'c'):\n    return BLOCK_N" in body        # the argument stays local
    assert "_v0_k(1, BLOCK_N=_v0_BLOCK_N)" in body                      # the global is renamed
    assert "_v0_BLOCK_N = 64" in body


def test_dispatcher_source_is_valid_and_passes_the_static_review():
    cand = _dispatcher()
    ast.parse(cand.source)
    assert cand.origin == "dispatcher" and cand.params == {}
    assert "_v0_BLOCK_N = 256" in cand.source and "_v1_ROWS_PER_PROGRAM = 2" in cand.source
    assert review(cand.source, "dispatcher.py") == []


def test_dispatcher_is_accepted_by_the_harness_held_out_shapes_included(evaluator, tmp_path):
    spec = load_op(ROOT / "suites" / "llm-inference" / "rmsnorm")
    cand = _dispatcher()
    path = tmp_path / "dispatcher.py"
    path.write_text(cand.materialize())
    result = evaluator.evaluate(spec, path, EvalOptions(trials=3, time=False))
    assert result.accepted, [str(r) for r in result.rejections]
    assert any(s.held_out and s.correct for s in result.shapes)
    assert {s.id: s.input_shapes for s in result.shapes if not s.held_out}["cpu-odd"] == [[3, 200]]


def test_a_dispatcher_needs_two_variants():
    with pytest.raises(ValueError, match="two variants"):
        build_dispatcher([_variant("blocked_columns.py", {})], [], "rmsnorm")
