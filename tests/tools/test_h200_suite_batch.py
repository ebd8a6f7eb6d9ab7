"""tools/h200_suite_batch.sh without a GPU (--device cpu): `aka batch --mode optimize` over a suite
of links to two operators, the report, at most six files in $OUT, then a --resume call that finds
everything done, and a --resume-from call on a machine whose run folder is gone."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "h200_suite_batch.sh"


def run(tmp_path: Path, out: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, "OUT": str(tmp_path / out),
           "AKA_BATCH_SESSIONS": str(tmp_path / "sessions")}
    return subprocess.run(["bash", str(SCRIPT), *args, "--device", "cpu"], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=400)


def test_an_optimize_batch_runs_reports_and_resumes(tmp_path):
    res = run(tmp_path, "out1", "--only", "rmsnorm,silu_and_mul", "--iterations", "1", "--budget-s", "300")
    assert res.returncode == 0, res.stderr[-3000:]
    out = tmp_path / "out1"
    assert len(list(out.iterdir())) <= 6                       # the device returns at most 8 files a call
    board = json.loads((out / "scoreboard.json").read_text())
    assert (board["done"], board["errored"], board["pending"]) == (2, 0, 0)
    assert "mode optimize" in (out / "report.md").read_text()
    with tarfile.open(out / "run.tgz") as tar:
        assert any(n.endswith("scoreboard.json") for n in tar.getnames())
    again = run(tmp_path, "out2", "--resume", "--budget-s", "200")
    assert again.returncode == 0, again.stderr[-3000:]
    assert "--resume" in (tmp_path / "out2" / "command.txt").read_text()
    assert json.loads((tmp_path / "out2" / "scoreboard.json").read_text())["done"] == 2

    shutil.rmtree(tmp_path / "sessions")                       # a fresh machine: only the carried run.tgz
    (tmp_path / "sessions").mkdir()
    carried = run(tmp_path, "out3", "--resume-from", str(out / "run.tgz"), "--budget-s", "200")
    assert carried.returncode == 0, carried.stderr[-3000:]
    assert json.loads((tmp_path / "out3" / "scoreboard.json").read_text())["done"] == 2
    twice = run(tmp_path, "out4", "--resume-from", str(out / "run.tgz"), "--budget-s", "200")
    assert twice.returncode == 2 and "already exists" in twice.stderr
