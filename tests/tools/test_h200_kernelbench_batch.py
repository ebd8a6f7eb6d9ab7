"""tools/h200_kernelbench_batch.sh without a GPU (--cpu-smoke): the suite at CPU sizes through
`aka batch --mode eval`, `aka report`, the copies into $OUT and the table printed last."""

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "h200_kernelbench_batch.sh"


@pytest.fixture
def small_dir():
    """Where the script writes the suite at CPU sizes: readable by the evaluation's confined process."""
    path = Path(tempfile.mkdtemp(prefix="aka-kb-small-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def run(tmp_path: Path, small: Path, *args: str, timeout: int = 240) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHON": sys.executable, "OUT": str(tmp_path / "out"),
           "AKA_KB_SESSIONS": str(tmp_path / "sessions"), "KB_SMALL_DIR": str(small)}
    return subprocess.run(["bash", str(SCRIPT), "--cpu-smoke", *args], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=timeout)


def test_cpu_smoke_runs_the_batch_reports_and_prints_the_table_last(tmp_path, small_dir):
    res = run(tmp_path, small_dir, "--only", "40_LayerNorm,51_Argmax_over_a_dimension")
    assert res.returncode == 0, res.stderr[-3000:]
    out = tmp_path / "out"
    board = json.loads((out / "scoreboard.json").read_text())
    assert (board["done"], board["errored"], board["pending"], board["real_kernel_share"]) == (2, 0, 0, 1.0)
    assert (out / "report.md").is_file() and len(list(out.iterdir())) <= 8     # what one device call returns
    with tarfile.open(out / "details.tgz") as tar:
        names = tar.getnames()
        assert "./run.tgz" in names and "./batch.log" in names
        assert json.loads(tar.extractfile("./batch.json").read())["done"] == 2
    table = (out / "table.md").read_text()
    assert "| 40_LayerNorm | accepted |" in table and "| 51_Argmax_over_a_dimension | accepted |" in table
    assert res.stdout.rstrip().endswith(table.rstrip())


def test_unknown_problem_is_refused_before_anything_runs(tmp_path, small_dir):
    res = run(tmp_path, small_dir, "--only", "99_Nothing", timeout=60)
    assert res.returncode == 2 and "99_Nothing" in res.stderr
    assert not (tmp_path / "sessions").exists() or not any((tmp_path / "sessions").iterdir())
