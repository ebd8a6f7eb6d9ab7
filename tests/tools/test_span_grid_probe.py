"""tools/span_grid_probe.py --sessions: counting recorded graph figures on a clock's grid (no GPU)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("span_grid_probe", ROOT / "tools" / "span_grid_probe.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _graph(median: float, iqr: float = 0.25) -> dict:
    return {"median_us": median, "iqr_us": iqr, "method": "graph",
            "note": "device span (CUPTI) + graph launch floor 0.60 µs"}


def test_recorded_figures_are_counted_on_and_off_the_grid(tmp_path, capsys):
    sess = tmp_path / "20261207-000000-rmsnorm"
    (sess / "candidates" / "v001").mkdir(parents=True)
    (sess / "baselines.json").write_text(json.dumps({
        "decode-1|graph": {"eager": _graph(4.3484), "torch.compile": _graph(1.8484, 0.0)},
        "prefill|events": {"eager": {"median_us": 451.0, "iqr_us": 2.0, "method": "events", "min_us": 449.92},
                           "torch.compile": {"median_us": 33.0, "iqr_us": 1.0, "method": "events", "min_us": 32.9}}}))
    (sess / "candidates" / "v001" / "eval.json").write_text(json.dumps({"shapes": [
        {"shape": "decode-1", "time": _graph(2.0984)}, {"shape": "decode-32", "time": _graph(2.21)},
        {"shape": "prefill", "time": {"median_us": 34.0, "iqr_us": 1.0, "method": "events"}}]}))
    tool = _tool()
    assert len(tool.timed_figures(tmp_path)) == 4          # events figures are not counted
    assert tool.recorded(tmp_path, 0.25, None) == 0
    out = capsys.readouterr().out
    assert "3 of 4 graph-timed figures" in out and "{0.0: 1, 1.0: 3}" in out
    assert "1 of 2 event-timed figures have their fastest sample on a 32 ns grid" in out   # 449.92 = 14060 x 32 ns


def test_no_graph_figures_is_an_error(tmp_path, capsys):
    assert _tool().recorded(tmp_path, 0.25, None) == 1
    assert "no graph-timed figures" in capsys.readouterr().err
