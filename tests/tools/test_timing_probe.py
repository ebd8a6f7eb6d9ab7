"""tools/timing_probe.py's summary and table, on the rows it wrote on the H200 (call B, 2026-12-04)."""

import json
from pathlib import Path

import pytest

from tests.tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
RUN = ROOT / "docs" / "results" / "h200-2026-12-04-timing" / "cover-rule"


@pytest.fixture(scope="module")
def tp():
    return load_tool("timing_probe")


def test_the_summary_is_the_median_of_the_rounds_as_printed_on_the_h200(tp):
    result = json.loads((RUN / "p3.json").read_text())
    assert tp.summarize(result["rows"]) == result["summary"]
    printed = (RUN / "probe.txt").read_text()
    for line in tp.table(result).splitlines():
        assert line in printed, line                         # the table is the one the device printed


def test_a_side_that_could_not_be_graphed_keeps_its_other_ways(tp):
    rows = {"k": [{"round": 0, "events": 10.0, "events_nohold": 30.0, "events_spin": 11.0, "graph": None,
                   "host": 80.0, "clock_mhz": 1980},
                  {"round": 1, "events": 12.0, "events_nohold": 34.0, "events_spin": 13.0, "graph": None,
                   "host": 90.0, "clock_mhz": 1980}]}
    s = tp.summarize(rows)
    assert s == {"k": {"events": 11.0, "events_nohold": 32.0, "events_spin": 12.0, "host": 85.0}}
    assert "10.0(1980) 12.0(1980)" in tp.table({"op": "x", "shape": "y", "rows": rows, "summary": s})
