"""`aka profile OP CANDIDATE` end to end against fake profiler executables (no GPU here): the tool's
faults raise (exit 3), the application's failures are the candidate's outcome (exit 1)."""

import json
import os
import stat
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aka.cli.main import build_app
from aka.profile import runner

DETAILS_NAME = "direct_ncu_details_full_ncu2025.3.1_H200_generated.csv"
EVAL = Path(__file__).resolve().parents[1] / "evaluate"
OP, CAND = str(EVAL / "fixtures" / "rmsnorm"), str(EVAL / "candidates" / "honest_rmsnorm.py")


def fake_ncu(bin_dir: Path, body: str) -> None:
    bin_dir.mkdir(exist_ok=True)
    exe = bin_dir / "ncu"
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)


@pytest.fixture
def fake_path(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr(runner, "SEARCH", {k: [] for k in runner.SEARCH})
    return bin_dir


def test_ncu_run_is_staged_parsed_and_moved(tmp_path, fake_path, fx):
    DETAILS = fx(DETAILS_NAME)
    # first call (profiling, sandboxed: it may write only in its folder) does nothing; second
    # (--import) records its argv, prints the details page; step1.log holds the first one's argv
    fake_ncu(fake_path, f'case "$*" in *--import*) echo "$@" > "{tmp_path}/import"; cat "{DETAILS}";; '
                        f'*) mkdir -p "$HOME/.triton/cache" "$HOME/Documents/NVIDIA Nsight Compute"; exit 0;; esac\n')
    out = tmp_path / "prof"
    res = CliRunner().invoke(build_app(), ["profile", OP, CAND, "--shape", "cpu-a", "--out", str(out), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["report"]["kernels"][0]["duration_ns"] == 63200
    argv = (out / "step1.log").read_text().splitlines()[0]
    assert "--clock-control none" in argv and "--set full" in argv and "--profile-from-start off" in argv
    assert "aka.evaluate.profile_driver" in argv and "--shapes cpu-a" in argv
    assert "--metrics dram__bytes_read.sum,dram__bytes_write.sum" in argv
    assert "--print-details all" in (tmp_path / "import").read_text()
    assert data["status"] == "ok" and data["report"]["kernels"][0]["dram_bytes"] == pytest.approx(244.1e6, rel=1e-3)
    assert {p.name for p in out.iterdir()} >= {"details.csv", "report.json", "summary.txt", "step1.log"}
    assert not {p.name for p in out.iterdir()} & {".triton", "Documents"}     # the run's home scratch is gone
    assert "memory-bound" in (out / "summary.txt").read_text()


def test_counter_permission_failure_is_the_machine_and_leaves_nothing(tmp_path, fake_path):
    fake_ncu(fake_path, 'echo "==ERROR== ERR_NVGPUCTRPERM - no permission"; exit 1\n')
    out = tmp_path / "prof"
    res = CliRunner().invoke(build_app(), ["profile", OP, CAND, "--out", str(out)])
    assert res.exit_code == 3 and "performance counters" in res.output
    assert not out.exists() and not list(tmp_path.glob(".staging-*"))


def test_application_failure_is_the_candidates_outcome(tmp_path, fake_path):
    fake_ncu(fake_path, 'echo "RuntimeError: CUDA error: an illegal memory access was encountered" >&2\n'
                        'echo "==ERROR== The application returned an error code (1)."; exit 1\n')
    out = tmp_path / "prof"
    res = CliRunner().invoke(build_app(), ["profile", OP, CAND, "--out", str(out), "--json"])
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["status"] == "app-failed" and data["ok"] is False and data["report"] is None
    assert "illegal memory access" in data["log_tail"]
    assert {p.name for p in out.iterdir()} == {"step1.log", "summary.txt"}
    res = CliRunner().invoke(build_app(), ["profile", OP, CAND, "--out", str(tmp_path / "again")])
    assert res.exit_code == 1 and "the candidate failed under ncu" in res.output


def test_missing_tool_and_existing_out(tmp_path, fake_path, monkeypatch):
    monkeypatch.setenv("PATH", str(fake_path))   # no real ncu either (the GPU machine has one)
    res = CliRunner().invoke(build_app(), ["profile", OP, CAND, "--tool", "ncu"])
    assert res.exit_code == 3 and "ncu was not found" in res.output   # the environment, not the input
    fake_ncu(fake_path, "exit 0\n")
    res = CliRunner().invoke(build_app(), ["profile", OP, CAND, "--out", str(tmp_path)])
    assert res.exit_code == 2 and "already exists" in res.output


def test_tool_commands_for_each_profiler(tmp_path):
    app = ["python", "-m", "driver"]
    full, export = runner.commands("ncu", "ncu", app, tmp_path)
    assert "WarpStateStats" not in full and full[-3:] == app   # the full set has it
    assert full[full.index("--metrics") + 1] == "dram__bytes_read.sum,dram__bytes_write.sum"
    assert export[-2:] == ["--print-details", "all"]
    basic = runner.commands("ncu", "ncu", app, tmp_path, ncu_set="basic")[0]
    assert basic[basic.index("--section") + 1] == "WarpStateStats"
    assert runner.commands("nsys", "nsys", app, tmp_path)[0][:3] == ["nsys", "profile", "--capture-range=cudaProfilerApi"]
    assert runner.commands("rocprofv3", "rocprofv3", app, tmp_path)[0][-4:] == ["--", *app]
    assert "--stats" in runner.commands("rocprof", "rocprof", app, tmp_path)[0]
