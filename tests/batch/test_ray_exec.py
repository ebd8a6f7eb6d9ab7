"""The body of a Ray task, run in this process without Ray: what it unpacks, what it sends back,
and that the node keeps nothing of the task afterwards (a long-lived Ray node runs thousands)."""

import tempfile

import pytest

from aka.batch import local, ray_exec
from aka.batch.suite import Operator
from aka.batch.tasks import Attempt, Task


@pytest.fixture
def node(tmp_path, monkeypatch):
    """A node's scratch space in tmp, no Ray, no GPU; returns (scratch folder, the task's payload)."""
    op_file = tmp_path / "suite" / "relu.py"
    op_file.parent.mkdir()
    op_file.write_text("# the operator\n")
    candidate = tmp_path / "kernel.py"
    candidate.write_text("# the candidate\n")
    task = Task(op=Operator("relu", str(op_file), "kernelbench"), mode="eval", op_dir=str(tmp_path / "opdir"),
                candidate=str(candidate))
    scratch = tmp_path / "node-tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.setattr(ray_exec, "_ray_gpu_ids", lambda: [])
    return scratch, ray_exec.payload(task)


def test_a_task_runs_on_its_unpacked_copy_and_leaves_nothing_behind(node, monkeypatch):
    scratch, data = node
    seen = {}

    def attempt(task, slot, argv):
        seen["op"] = open(task.op.path).read()
        seen["candidate"] = open(task.candidate).read()
        seen["inside"] = task.op_dir.startswith(str(scratch))
        session = ray_exec.Path(task.op_dir) / "sessions" / "20261206-000000-relu"
        session.mkdir(parents=True)
        (session / "session.json").write_text("{}")
        return Attempt(returncode=0, stdout=f'{{"session": "{session}"}}', slot=slot)

    monkeypatch.setattr(local, "run_attempt", attempt)
    out = ray_exec.run_remote(data)
    assert seen == {"op": "# the operator\n", "candidate": "# the candidate\n", "inside": True}
    assert out["returncode"] == 0 and out["slot"]["kind"] == "cpu" and out["sessions"]
    assert list(scratch.iterdir()) == []


def test_a_task_that_fails_on_the_node_leaves_nothing_behind(node, monkeypatch):
    scratch, data = node

    def attempt(task, slot, argv):
        raise OSError("the node ran out of processes")

    monkeypatch.setattr(local, "run_attempt", attempt)
    with pytest.raises(OSError, match="out of processes"):
        ray_exec.run_remote(data)
    assert list(scratch.iterdir()) == []
