"""Per-shape dispatchers: built from two reference kernels, judged by the real harness; an unseen
shape routed by the nearest tuned shape's size or, with learned buckets, by its bucket."""

import ast
import importlib.util
from pathlib import Path

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.review import review
from aka.propose.dispatch import Bucket, Unseen, _prefixed, build_dispatcher
from aka.spec.candidate import Candidate
from aka.spec.load import load_op

ROOT = Path(__file__).parents[2]
KERNELS = ROOT / "reference_kernels" / "rmsnorm"


def _variant(name, params):
    return Candidate((KERNELS / name).read_text(), params, origin="tuner", name=f"rmsnorm/{name}",
                     family=f"rmsnorm/{name}")


BY_BUCKET = Unseen("bucket", "made up for the test",
                   (Bucket("cpu-small", ((4, 96),), 0), Bucket("cpu-odd", ((3, 200),), 0), Bucket("cpu-long", ((2, 2500),), 1)),
                   ("bucket {cpu-odd, cpu-small} -> variant 0", "bucket {cpu-long} -> variant 1"))


def _dispatcher(unseen=None):
    v0 = _variant("blocked_columns.py", {"BLOCK_N": 256})
    v1 = _variant("multi_row_tile.py", {"ROWS_PER_PROGRAM": 2})
    buckets = [Bucket("cpu-small", ((4, 96),), 0), Bucket("cpu-odd", ((3, 200),), 1),
               Bucket("cpu-long", ((2, 2500),), 0)]
    return build_dispatcher([v0, v1], buckets, "rmsnorm", parent="p", unseen=unseen)


def _model(cand, tmp_path):
    path = tmp_path / f"d{cand.short}.py"
    path.write_text(cand.materialize())
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ModelNew(hidden=96)


def test_an_unseen_shape_goes_to_the_nearest_size_or_to_its_nearest_members_bucket(tmp_path):
    old, new = _model(_dispatcher(), tmp_path), _model(_dispatcher(BY_BUCKET), tmp_path)
    for m in (old, new):                                         # tuned shapes: their own winner
        assert [m._pick(s) is m.variants[v] for s, v in ((((3, 200),), 1), (((2, 2500),), 0))] == [True, True]
    held = ((5, 123),)                                           # size 615: nearest cpu-odd (600) ...
    assert old._pick(held) is old.variants[1]
    assert new._pick(held) is new.variants[0]                   # ... in log dims nearest cpu-small (4, 96)
    assert new._pick(((3, 2400),)) is new.variants[1]            # cpu-long's bucket
    assert new._pick(((2, 3, 96),)) is new.variants[1]           # another rank: by size (576), cpu-odd's winner
    src = _dispatcher(BY_BUCKET).source
    assert "# Unseen shapes (no exact match): the bucket rule." in src and "# Why: made up for the test." in src
    assert "#   bucket {cpu-long} -> variant 1" in src and "    (((3, 200),), 0),  # cpu-odd" in src
    assert "_AKA_UNSEEN" not in _dispatcher().source and "unseen" not in _dispatcher().rationale


def test_renaming_keeps_arguments_that_shadow_module_constants():
    src = ("import triton\nBLOCK_N = 64\n\n@triton.jit\ndef k(x, BLOCK_N: 'c'):\n    return BLOCK_N\n\n"
           "def host():\n    return k(1, BLOCK_N=BLOCK_N)\n")
    imports, body = _prefixed(src, "_v0_", "t")
    assert imports == ["import triton"]
    assert "def _v0_k(x, BLOCK_N: 'c'):\n    return BLOCK_N" in body        # the argument stays local
    assert "_v0_k(1, BLOCK_N=_v0_BLOCK_N)" in body                      # the global is renamed
    assert "_v0_BLOCK_N = 64" in body


def test_dispatcher_source_is_valid_and_passes_the_static_review():
    for cand in (_dispatcher(), _dispatcher(BY_BUCKET)):
        ast.parse(cand.source)
        assert cand.origin == "dispatcher" and cand.params == {}
        assert "_v0_BLOCK_N = 256" in cand.source and "_v1_ROWS_PER_PROGRAM = 2" in cand.source
        assert review(cand.source, "dispatcher.py") == []


def test_dispatcher_is_accepted_by_the_harness_held_out_shapes_included(evaluator, tmp_path):
    spec = load_op(ROOT / "suites" / "llm-inference" / "rmsnorm")
    cand = _dispatcher(BY_BUCKET)                                # the held-out shape routed by its bucket
    path = tmp_path / "dispatcher.py"
    path.write_text(cand.materialize())
    result = evaluator.evaluate(spec, path, EvalOptions(trials=3, time=False))
    assert result.accepted, [str(r) for r in result.rejections]
    assert any(s.held_out and s.correct for s in result.shapes)
    assert {s.id: s.input_shapes for s in result.shapes if not s.held_out}["cpu-odd"] == [[3, 200]]


def test_a_dispatcher_needs_two_variants():
    with pytest.raises(ValueError, match="two variants"):
        build_dispatcher([_variant("blocked_columns.py", {})], [], "rmsnorm")
