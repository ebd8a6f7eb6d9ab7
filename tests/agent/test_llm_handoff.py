"""The model's kernel declares tunable parameters: the tuner searches its space before the model is
asked again; each point is judged and compared like any candidate; a dropout ends the hand-off."""

import re

import pytest

from aka.agent.state import LoopConfig
from aka.errors import EnvironmentMissing
from aka.evaluate.harness import ScriptedEvaluator
from aka.propose.handoff import tunable
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events
from aka.spec.memory import ProposalContext

from tests.propose.llm_server import ScriptedServer, reply
from tests.propose.replies import FAST, SLOW, fenced, kernel

from .llm_kit import SHAPES, run

SPACE = "NUM_WARPS: {values: [2, 4, 8, 16], default: 4}"
TUNABLE = fenced("Tile the reduction across more warps; the right warp count depends on the hidden size, "
                 "so I declare it as a tunable parameter.", kernel("warp-tiled", params=SPACE))


def warp_times(at_best: float):
    """one-row-slow 10 µs, FAST 5 µs; warp-tiled by its NUM_WARPS (8 is the best point)."""
    by_warps = {2: 14.0, 4: 12.0, 8: at_best, 16: 11.0}

    def script(c):
        strategy = re.search(r"^strategy:\s*(\S+)", c.source, re.M).group(1)
        if strategy == "warp-tiled":
            return "accepted", {s: by_warps[c.params["NUM_WARPS"]] for s in SHAPES}
        return "accepted", {s: {"one-row-slow": 10.0, "single-pass-fast": 5.0}[strategy] for s in SHAPES}
    return script


def _proposals(session):
    return [e.data for e in read_events(session / "events.jsonl").events if e.kind == "propose"]


class CrashAt:
    """Raises (a resumable error) when the loop journals the proposal of a given name."""

    def __init__(self, name: str):
        self.name = name

    def emit(self, kind, data):
        if kind == "propose" and data.get("name") == self.name:
            raise EnvironmentMissing(f"simulated crash at {self.name}")


def test_a_declared_space_is_searched_before_the_model_is_asked_again_and_survives_a_resume(tmp_path):
    root = tmp_path / "20260101-000000-rmsnorm-llm"
    config = LoopConfig(iterations=6, stall=10)
    with ScriptedServer([reply(SLOW), reply(TUNABLE), reply(FAST)]) as srv:
        with pytest.raises(EnvironmentMissing):
            run(root, srv.url, config, hooks=[CrashAt("v002-tune2")], evaluator=ScriptedEvaluator(warp_times(6.0)))
        assert len(srv.requests) == 2                    # v003 came from the tuner, not the model
        out, _, _ = run(root, srv.url, config, resumed=True, evaluator=ScriptedEvaluator(warp_times(6.0)))
        assert len(srv.requests) == 3
    props = _proposals(root)
    names = [p["name"] for p in props]
    assert names == ["llm-001", "llm-002", "v002-tune1", "v002-tune2", "v002-tune2", "v002-tune3", "llm-006"]
    assert props[3]["params"] == props[4]["params"]     # the resumed run proposes the point the crash lost
    del props[3]
    assert props[1]["params"] == {"NUM_WARPS": 4} and props[1]["tunable"] == "declares ['NUM_WARPS']"
    tuned = props[2:5]
    assert sorted(p["params"]["NUM_WARPS"] for p in tuned) == [2, 8, 16]          # every other point, once
    assert all(p["origin"] == "tuner" and p["handoff"]["from"] == "v002" and "llm_call" not in p for p in tuned)
    accepts = {a["version"]: a for a in (e.data for e in read_events(root / "events.jsonl").events
                                         if e.kind == "accept")}
    assert not accepts["v002"]["promote"]                # 12 µs at its defaults: slower than the incumbent
    best_point = next(f"v{i + 1:03d}" for i, p in enumerate(props) if p["params"] == {"NUM_WARPS": 8})
    assert accepts[best_point]["promote"] and accepts["v006"]["promote"] and out.best == "v006"
    assert "NUM_WARPS = 8\n" in SessionFolder(root).candidate(best_point)[1].read_text()   # the file run
    assert "NUM_WARPS = 8\n" in srv.last_user(2)     # the model sees the tuned incumbent


def test_the_points_a_model_declares_are_tried_first(tmp_path):
    """The model names its best guess in `points:`: the hand-off's first point is that one."""
    declared = kernel("warp-tiled", params=SPACE + "\npoints:\n  - {NUM_WARPS: 16}")
    guess = fenced("Warps by hidden size; 16 is my guess for these rows.", declared)
    root = tmp_path / "20260101-000000-rmsnorm-llm"
    with ScriptedServer([reply(SLOW), reply(guess), reply(FAST)]) as srv:
        run(root, srv.url, LoopConfig(iterations=3, stall=10), evaluator=ScriptedEvaluator(warp_times(6.0)))
    props = _proposals(root)
    assert [p["name"] for p in props] == ["llm-001", "llm-002", "v002-tune1"]
    assert props[2]["params"] == {"NUM_WARPS": 16}


def test_a_dropout_ends_the_handoff(tmp_path):
    root = tmp_path / "20260101-000000-rmsnorm-llm"
    with ScriptedServer([reply(SLOW), reply(TUNABLE), reply(FAST)]) as srv:
        out, llm, _ = run(root, srv.url, LoopConfig(iterations=4, stall=2, seed=3),
                          evaluator=ScriptedEvaluator(warp_times(13.0)))   # no point beats 10 µs
    names = [p["name"] for p in _proposals(root)]
    assert names == ["llm-001", "llm-002", "v002-tune1", "llm-004"] and llm.resets == 1
    assert "Fresh start #1" in srv.last_user()


def test_what_makes_a_declared_space_usable():
    ctx = ProposalContext(op={"name": "rmsnorm", "backend": "triton", "shapes": []}, device={}, iteration=0)
    meta, why = tunable(kernel("x", params=SPACE), ctx)
    assert meta.defaults() == {"NUM_WARPS": 4} and meta.dsl == "triton" and why == ""
    assert tunable(kernel("x"), ctx) == (None, "")                                  # declares nothing
    assert tunable("import torch\n", ctx) == (None, "")
    meta, why = tunable(kernel("x", params="BLOCK_N: {values: [64, 128], default: 64}"), ctx)
    assert meta is None and "['BLOCK_N'] are not module-level constants" in why
    meta, why = tunable(kernel("x", params="NUM_WARPS: {values: [2, 4], default: 32}"), ctx)
    assert meta is None and "default 32 is not among values" in why
