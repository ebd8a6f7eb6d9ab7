"""tools/h200_suite_bench.sh refuses bad input before it installs or measures anything (the
measuring itself needs the H200; its results are in docs/benchmarks.md)."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tools" / "h200_suite_bench.sh"


def _run(tmp_path, *args):
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, OUT=str(tmp_path / "out")))


def test_bad_arguments_exit_2_and_write_nothing(tmp_path):
    for args, says in ((), "name at least one suite"), (("suites/nowhere",), "no suite folder suites/nowhere"), \
            (("--bogus", "suites/llm-inference"), "unknown argument --bogus"), \
            (("--from", str(tmp_path / "missing"), "suites/llm-inference"), "--from: no folder"), \
            (("--budget-s", "85", "suites/llm-inference"), "below 130 s no operator could start"), \
            (("--budget-s", "9x", "suites/llm-inference"), "expected whole seconds"):
        res = _run(tmp_path, *args)
        assert res.returncode == 2, (args, res.stderr)
        assert says in res.stderr
    assert not (tmp_path / "out").exists()


def test_without_out_it_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "OUT"}
    res = subprocess.run(["bash", str(SCRIPT), "suites/llm-inference"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert res.returncode != 0 and "set OUT" in res.stderr


def test_a_suite_left_no_start_window_is_named_and_fails_the_call(tmp_path):
    """One GPU, two suites in sequence: when the first uses up the start window (S-120 s), the second
    is reported as not started and the script exits 1, instead of passing a spent budget on and
    exiting 0 with nothing measured (session 39's call 3)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "nvidia-smi").write_text("#!/bin/sh\necho 'index, name'\necho '0, Fake GPU'\n")
    # stands in for python3: the first suite's measuring run outlasts the 10 s start window of --budget-s 130
    (bin_dir / "python3").write_text('#!/bin/bash\ncase " $* " in *" --stop-after-s "*) sleep 11 ;; esac\nexit 0\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = dict(os.environ, OUT=str(tmp_path / "out"), PATH=f"{bin_dir}:{os.environ['PATH']}")
    res = subprocess.run(["bash", str(SCRIPT), "--budget-s", "130", "suites/kernel-patterns", "suites/llm-inference"],
                         capture_output=True, text=True, cwd=ROOT, env=env)
    assert res.returncode == 1, res.stderr
    assert "llm-inference: not started, nothing measured" in res.stderr
    assert "kernel-patterns: not started" not in res.stderr
    assert "llm-inference: not started" in (tmp_path / "out" / "gpu.txt").read_text()


def test_winners_files_reach_every_suites_measuring_run(tmp_path):
    """--winners (repeatable) is handed to suite_bench for each suite: the kernels to measure are
    chosen there, from the named tables."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "args.log"
    (bin_dir / "nvidia-smi").write_text("#!/bin/sh\necho 'index, name'\necho '0, Fake GPU'\n")
    (bin_dir / "python3").write_text(f'#!/bin/bash\necho "$*" >> {log}\nexit 0\n')
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    env = dict(os.environ, OUT=str(tmp_path / "out"), PATH=f"{bin_dir}:{os.environ['PATH']}")
    res = subprocess.run(["bash", str(SCRIPT), "--budget-s", "300", "--winners", "a.json", "--winners", "b.json",
                          "suites/kernel-patterns", "suites/llm-inference"], capture_output=True, text=True, cwd=ROOT,
                         env=env)
    assert res.returncode == 0, res.stderr
    runs = [line for line in log.read_text().splitlines() if "--stop-after-s" in line]
    assert len(runs) == 2 and all("--winners a.json --winners b.json" in r for r in runs), runs
