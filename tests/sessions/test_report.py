"""report.md of a greedy session whose best kernel is the tuner's per-shape dispatcher: it says which
rule serves a shape the dispatcher was not tuned for, as the journal and the generated source do.
(The map-elites archive section is checked on the sessions of tests/agent/test_map_elites*.py and
tests/cli/test_optimize_map_elites_cli.py.)"""

import json
from pathlib import Path

from aka.agent.state import LoopConfig
from aka.evaluate.harness import ScriptedEvaluator
from aka.propose.tuner import Tuner
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events
from aka.sessions.run import run_session
from aka.spec.kernel import read_kernel_meta
from aka.spec.load import load_op

ROOT = Path(__file__).parents[2]
SPEC = load_op(ROOT / "suites" / "llm-inference" / "rmsnorm")
FAMILIES = ("blocked_columns.py", "multi_row_tile.py", "one_row_registers.py")
TIMES = {"rmsnorm/blocked_columns.py": {"cpu-small": 10.0, "cpu-odd": 10.0, "cpu-long": 10.0},
         "rmsnorm/multi_row_tile.py": {"cpu-small": 9.8, "cpu-odd": 20.0, "cpu-long": 30.0},
         "rmsnorm/one_row_registers.py": {"cpu-small": 30.0, "cpu-odd": 30.0, "cpu-long": 7.0}}
SHAPES = [s.id for s in SPEC.cpu_shapes]
DEFAULTS = {f"rmsnorm/{name}": read_kernel_meta(ROOT / "reference_kernels" / "rmsnorm" / name).defaults()
            for name in FAMILIES}


def _times(candidate):
    """Each family wins a shape at its defaults; the dispatcher of them is fastest; other points slow."""
    if candidate.origin == "dispatcher":
        return "accepted", {s: 6.0 for s in SHAPES}
    mine = TIMES[candidate.family]
    return "accepted", mine if candidate.params == DEFAULTS[candidate.family] else {s: 50.0 for s in SHAPES}


class WithTensors(ScriptedEvaluator):
    """The scripted harness, with each shape's input tensor shapes as the real one records them."""

    def evaluate(self, spec, candidate, path, focus=()):
        result = super().evaluate(spec, candidate, path, focus=focus)
        for s in result.shapes:
            s.input_shapes = [[s.params["n_rows"], s.params["hidden"]]]
        return result


def test_the_report_says_how_the_best_dispatcher_serves_unseen_shapes(tmp_path):
    kernels = tmp_path / "kernels" / "rmsnorm"
    kernels.mkdir(parents=True)
    for name in FAMILIES:
        (kernels / name).write_text((ROOT / "reference_kernels" / "rmsnorm" / name).read_text())
    folder = SessionFolder.create(tmp_path / "s", "20260101-000000-rmsnorm", {"op": {"name": "rmsnorm"}})
    out = run_session(folder, SPEC, LoopConfig(iterations=4, stall=10), WithTensors(_times),
                      Tuner([tmp_path / "kernels"]), progress=False)
    best = json.loads((out.session / "best" / "candidate.json").read_text())
    assert best["origin"] == "dispatcher"
    proposed = next(e.data for e in read_events(out.session / "events.jsonl").events
                    if e.kind == "propose" and e.data.get("origin") == "dispatcher")
    unseen = proposed["unseen_shapes"]
    assert unseen["rule"] == "bucket" and "the bucket rule measured equal: the buckets are kept" in unseen["why"]
    assert [b["shapes"] for b in unseen["buckets"]] == [["cpu-long"], ["cpu-odd", "cpu-small"]]
    assert "_AKA_UNSEEN" in best["source"] and "#   bucket {cpu-odd, cpu-small} -> variant" in best["source"]
    report = (out.session / "report.md").read_text()
    assert ("It is a per-shape dispatcher: a shape it was not tuned for (held-out or yours) runs by the bucket rule "
            f"({unseen['why']}).") in report
    assert "## Archive" not in report                                      # a greedy session keeps no archive
    assert "## The run" in report and "4 candidates evaluated in" in report     # its wall time and rate
    assert "| evaluate |" in report
