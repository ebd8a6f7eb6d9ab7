"""tools/map_elites_bench.py's figures and table, and tools/h200_map_elites.sh parses (the sessions
themselves are covered by tests/cli/test_optimize_map_elites_cli.py)."""

import subprocess
from pathlib import Path

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    return load_tool("map_elites_bench")


def _doc(strategy, eager, compile_, sol, cells=None):
    shapes = [{"shape": "a", "weight": 0.75, "speedup": {"eager": eager, "torch.compile": compile_}, "sol": sol},
              {"shape": "b", "weight": 0.25, "speedup": {"eager": eager, "torch.compile": compile_}, "sol": sol}]
    doc = {"op": "rmsnorm", "strategy": strategy, "evaluated": 6, "best_name": "rmsnorm/x.py", "shapes": shapes,
           "families": ["f1", "f2"], "wall_s": 40.0, "stop_reason": "budget: 6 candidates evaluated", "mode": "gpu"}
    if cells:
        doc["archive"] = {"cells": cells}
    return doc


def test_weighted_figures_and_the_table():
    tool = _tool()
    f = tool.figures(_doc("greedy", 4.0, 1.1, 0.8))
    assert abs(f["eager"] - 4.0) < 1e-9 and abs(f["torch.compile"] - 1.1) < 1e-9 and abs(f["sol"] - 0.8) < 1e-9
    table = tool.render([_doc("greedy", 4.0, 1.1, 0.8), _doc("map-elites", 4.4, 1.2, 0.85, cells=5)])
    assert "| rmsnorm | map-elites | 6 | rmsnorm/x.py | 4.40× | 1.20× | 0.850 | 2 | 5 | 40.0 |" in table
    assert tool.figures({"shapes": []}) == {"eager": None, "torch.compile": None, "sol": None}


def test_the_interpreter_runs_every_cpu_shape_and_the_device_script_parses():
    assert _tool().pick_shapes(ROOT / "suites" / "llm-inference" / "rmsnorm", 3) == []
    assert subprocess.run(["bash", "-n", str(ROOT / "tools" / "h200_map_elites.sh")]).returncode == 0
