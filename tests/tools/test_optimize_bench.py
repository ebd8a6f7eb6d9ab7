"""tools/optimize_bench.py's time breakdown, on the session recorded on the H200 (docs/results)."""

import tarfile
from pathlib import Path

from tests.tools import load_tool

ROOT = Path(__file__).parents[2]
ARCHIVE = ROOT / "docs" / "results" / "h200-2026-12-04" / "llm-session" / "session.tgz"


def _bench():
    return load_tool("optimize_bench")


def test_the_journal_charges_each_step_its_time(tmp_path):
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(tmp_path, filter="data")
    (session,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    bench = _bench()
    tb = bench.time_breakdown(session)
    assert tb["step_counts"]["evaluate"] == 9 and tb["step_counts"]["profile"] == 1
    assert 90 < tb["steps_s"]["evaluate"] < 100            # 9 evaluations of 9.3-19.4 s on the H200
    assert 10 < tb["steps_s"]["profile"] < 12
    assert sum(tb["steps_s"].values()) < 140               # the session's journal spans 136 s
    table = "\n".join(bench.breakdown_table([{"op": "rmsnorm", "time_breakdown": tb}]))
    assert "| rmsnorm | 1.7 (1) | 95.7 (9) | 20.8 (9) | 10.8 (1) |" in table
    assert bench.time_breakdown(tmp_path / "missing") == {}
