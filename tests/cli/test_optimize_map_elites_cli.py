"""`aka optimize --strategy map-elites` end to end on the CPU interpreter with the tuner and the real
harness, then `aka replay` showing the archive as a grid; bad settings exit 2 naming the option."""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
RMSNORM = ROOT / "suites" / "llm-inference" / "rmsnorm"


def aka(*args, cwd, timeout=600):
    return subprocess.run([sys.executable, "-m", "aka", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "AKA_DEVICE": "cpu"})


def test_map_elites_with_the_tuner_on_the_interpreter_then_replay_shows_the_grid(tmp_path):
    out = aka("optimize", RMSNORM, "--strategy", "map-elites", "--iterations", "6", "--islands", "2",
              "--migrate-every", "1", "--kb", "none", "--sessions-dir", tmp_path / "s", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    doc = json.loads(out.stdout)
    assert doc["ok"] and doc["evaluated"] == 6 and doc["mode"] == "cpu-interpreter"
    grid = doc["archive"]
    assert grid["cells"] >= 2 and len(grid["islands"]) == 2 and grid["migrations"] >= 2
    session = Path(doc["session"])
    events = [json.loads(line) for line in (session / "events.jsonl").read_text().splitlines()]
    config = events[0]["data"]["config"]
    assert config["strategy"] == "map-elites" and config["search"] == {"islands": 2, "migrate_every": 1}
    filed = [e["data"] for e in events if e["kind"] == "archive"]
    assert len(filed) == 6 and filed[0]["why"]["bottleneck"].startswith("the CPU interpreter")
    assert [f["archive"]["cells"] for f in filed] == sorted(f["archive"]["cells"] for f in filed)
    assert "archive island" not in out.stderr                               # --json: no progress lines

    report = (session / "report.md").read_text()                        # the archive in report.md, from the journal
    assert "## Archive (map-elites)" in report and "### Island 0 (" in report and "### Island 1 (" in report
    assert report.count("| compute \\ memory | plain (m0) | vectorized (m1) | on-chip-tiled (m2) |") == 2
    assert f"{grid['cells']} cell(s) filled on 2 island(s) over 3 generation(s)" in report
    filings = [f"`{f['version']}` {f['cell'].split('/', 1)[1]} p" for f in filed]   # version, kernel@region, score
    assert any(row in report for row in filings), filings      # which filing is still an elite depends on interpreter times
    rows = report.split("### Filling per generation")[1].split("###")[0]
    assert [line.split(" | ")[0] for line in rows.strip().splitlines()[2:]] == ["| 0", "| 1", "| 2"]
    assert "- after generation 0: " in report and (session / "plots" / "archive.png").is_file()

    text = aka("replay", session, "--print", cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "Archive (map-elites):" in text.stdout and "compute \\ memory" in text.stdout
    assert "migration after generation 0" in text.stdout and "island 1" in text.stdout   # as report.md says
    replay = json.loads(aka("replay", session, "--json", cwd=tmp_path).stdout)
    assert len(replay["archive"]["islands"]) == 2 and replay["archive"]["filling"][-1]["cells"] == grid["cells"]
    assert {"select", "archive", "migrate"} <= {e["kind"] for e in replay["events"]}


def test_bad_map_elites_settings_exit_2_naming_the_option(tmp_path):
    out = aka("optimize", RMSNORM, "--strategy", "map-elites", "--islands", "0", "--sessions-dir", tmp_path / "s",
              cwd=tmp_path)
    assert out.returncode == 2 and "--islands" in out.stderr and not (tmp_path / "s").exists()
    out = aka("optimize", RMSNORM, "--islands", "2", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 2 and "--islands goes with --strategy map-elites" in out.stderr
    out = aka("optimize", RMSNORM, "--strategy", "annealing", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 2 and "--strategy must be greedy or map-elites" in out.stderr
