"""EvalOptions.methods: a caller (suite_bench matching a baseline that could only be timed with
events) fixes how the candidate is timed at a shape; bad values are refused before anything runs."""

from __future__ import annotations

import pytest
import torch

from aka.errors import CandidateError
from aka.evaluate.evaluator import EvalOptions, Evaluator

from .conftest import CANDIDATES


class _CpuPool:
    device = "cpu"


def test_the_forced_method_rides_on_its_shape_only(fixture_op):
    sid = fixture_op.cpu_shapes[0].id
    _, rows, _ = Evaluator(_CpuPool()).plan(fixture_op, EvalOptions(methods={sid: "events"}))
    assert {r["id"]: r.get("method") for r in rows if not r["held_out"]}[sid] == "events"
    assert all(r.get("method") is None for r in rows if r["id"] != sid)


@pytest.mark.parametrize("methods, says", [({"no-such-shape": "graph"}, "not visible shapes"),
                                           ({"__first__": "fastest"}, "'graph' or 'events'")])
def test_bad_forced_methods_are_refused(fixture_op, methods, says):
    methods = {(fixture_op.cpu_shapes[0].id if k == "__first__" else k): v for k, v in methods.items()}
    with pytest.raises(CandidateError, match=says):
        Evaluator(_CpuPool()).plan(fixture_op, EvalOptions(methods=methods))


def test_a_held_out_shape_cannot_be_forced(fixture_op):
    held = fixture_op.cpu_held_out_shapes[0].id
    with pytest.raises(CandidateError, match="not visible shapes"):
        Evaluator(_CpuPool()).plan(fixture_op, EvalOptions(methods={held: "events"}))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_a_small_shape_forced_to_events_is_timed_with_events(fixture_op):
    from aka.evaluate.pool import WorkerPool

    small = min(fixture_op.shapes, key=lambda s: s.params.get("n_rows", 0) * s.params.get("hidden", 0)).id
    with WorkerPool("cuda") as pool:
        ev = Evaluator(pool)
        free = ev.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", EvalOptions(shapes=(small,), baselines=()))
        fixed = ev.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py",
                            EvalOptions(shapes=(small,), baselines=(), methods={small: "events"}))
    method = {r.id: r.time.method for r in fixed.shapes if r.time}
    assert fixed.accepted and method[small] == "events"
    assert free.accepted and {r.id: r.time.method for r in free.shapes if r.time}[small] == "graph"
