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
