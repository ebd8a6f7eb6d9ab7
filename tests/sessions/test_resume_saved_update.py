"""A process that dies after a node's update was saved but before the next step's checkpoint:
LangGraph then reports no `next` node, only the finished task. The session had not stopped; a
resumed run must go on from that node's routing (found by kill -9 right after a `decide`)."""

import json

import pytest
from langgraph.checkpoint.sqlite import SqliteSaver

from aka.agent.state import LoopConfig

from tests.agent.loop_kit import run


class Died(Exception):
    pass


def test_a_session_killed_between_a_saved_update_and_the_next_checkpoint_goes_on(tmp_path, monkeypatch):
    saved = {"n": 0}

    class DiesAfterDecide(SqliteSaver):
        """After the first `decide` has saved its update, the next checkpoint fails to be written (the
        writes of a task LangGraph already ran by then stay saved, as they would after kill -9)."""

        def put_writes(self, config, writes, task_id, task_path=""):
            super().put_writes(config, writes, task_id, task_path)
            if any(ch == "events" and value == ["decide"] for ch, value in writes):
                saved["n"] += 1

        def put(self, config, checkpoint, metadata, new_versions):
            if saved["n"] == 1:
                saved["n"] += 1
                raise Died("killed before the next checkpoint")
            return super().put(config, checkpoint, metadata, new_versions)

    monkeypatch.setattr("langgraph.checkpoint.sqlite.SqliteSaver", DiesAfterDecide)
    with pytest.raises(Died):
        run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=3, stall=10), resumed=False)
    monkeypatch.undo()
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=3, stall=10), resumed=True)
    events = [json.loads(line) for line in (out.session / "events.jsonl").read_text().splitlines()]
    [resume] = [e["data"] for e in events if e["kind"] == "resume"]
    assert resume.get("completing") and "note" not in resume      # a saved update, not a finished session
    versions = [e["data"]["version"] for e in events if e["kind"] == "evaluate"]
    assert versions == ["v001", "v002", "v003"] and out.stop_reason == "budget: 3 candidates evaluated"
    assert (tmp_path / "log").read_text().split() == ["a1", "b2", "c3"]          # none evaluated twice
