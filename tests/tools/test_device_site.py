"""tools/device_site.sh, which the device-call tools source: the carried wheels installed once per
machine (a stamp), the site folder first on PYTHONPATH, and a failed install returned as 3. pip is
replaced by a recording stand-in on PATH, so nothing is installed here."""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo(tmp_path):
    """A repository root with tools/device_site.sh, one carried wheel and a python3 that records
    its arguments and exits with $PIP_RC."""
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "device_site.sh").write_text((ROOT / "tools" / "device_site.sh").read_text())
    (tmp_path / ".whl").mkdir()
    (tmp_path / ".whl" / "pkg-1.0-py3-none-any.whl").write_text("")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "python3").write_text('#!/bin/sh\necho "$@" >> "$CALLS"\nexit "${PIP_RC:-0}"\n')
    (bin_ / "python3").chmod(0o755)
    return tmp_path


def _source(repo: Path, pip_rc: int = 0, pythonpath: str = "/x") -> tuple[int, str, list[str]]:
    calls = repo / "calls.txt"
    env = {**os.environ, "PATH": f"{repo / 'bin'}:{os.environ['PATH']}", "CALLS": str(calls),
           "PIP_RC": str(pip_rc), "AKA_DEVICE_SITE": str(repo / "site"), "PYTHONPATH": pythonpath}
    r = subprocess.run(["bash", "-c", '. tools/device_site.sh; carried_wheels; rc=$?; echo "$PYTHONPATH"; exit $rc'],
                       cwd=repo, env=env, capture_output=True, text=True)
    return r.returncode, r.stdout.strip(), calls.read_text().splitlines() if calls.exists() else []


def test_wheels_install_once_per_machine_and_the_site_goes_first_on_the_path(repo):
    (repo / "site").mkdir()                       # pip --target makes it; the stand-in does not
    rc, path, calls = _source(repo)
    assert rc == 0 and path == f"{repo / 'site'}:/x"
    assert len(calls) == 1 and "--target" in calls[0] and ".whl/pkg-1.0-py3-none-any.whl" in calls[0]
    assert (repo / "site" / ".aka-wheels").exists()
    rc, path, calls = _source(repo)               # a warm machine: the stamp skips pip
    assert rc == 0 and len(calls) == 1 and path.startswith(str(repo / "site"))


def test_a_failed_install_returns_3_and_leaves_no_stamp(repo):
    rc, path, calls = _source(repo, pip_rc=1)
    assert rc == 3 and len(calls) == 1 and not (repo / "site" / ".aka-wheels").exists()


def test_without_carried_wheels_or_a_site_nothing_changes(repo):
    for w in (repo / ".whl").iterdir():
        w.unlink()
    rc, path, calls = _source(repo)
    assert rc == 0 and calls == [] and path == "/x"


def test_a_call_frame_saves_its_folder_and_counts_down_its_budget(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    env = {**os.environ, "OUT": str(out), "BUDGET": "100"}
    script = ('. tools/device_site.sh; call_begin aka-test-call; echo hi > "$W/a.txt"; save; '
              'T0=$(( T0 - 30 )); echo "$(left)"')
    r = subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.strip()) in (69, 70)
    listing = subprocess.run(["tar", "tzf", str(out / "aka-test-call.tgz")], capture_output=True, text=True).stdout
    assert "./a.txt" in listing.split()
    r = subprocess.run(["bash", "-c", ". tools/device_site.sh; call_begin x"], cwd=ROOT,
                       env={k: v for k, v in os.environ.items() if k != "OUT"}, capture_output=True, text=True)
    assert r.returncode != 0 and "OUT" in r.stderr


def test_site_on_path_installs_nothing_and_adds_only_a_folder_that_exists(repo):
    calls = repo / "calls.txt"
    env = {**os.environ, "PATH": f"{repo / 'bin'}:{os.environ['PATH']}", "CALLS": str(calls),
           "AKA_DEVICE_SITE": str(repo / "site"), "PYTHONPATH": "/x"}
    run = ["bash", "-c", '. tools/device_site.sh; site_on_path; echo "$PYTHONPATH"']
    assert subprocess.run(run, cwd=repo, env=env, capture_output=True, text=True).stdout.strip() == "/x"
    (repo / "site").mkdir()
    out = subprocess.run(run, cwd=repo, env=env, capture_output=True, text=True).stdout.strip()
    assert out == f"{repo / 'site'}:/x" and not calls.exists()


def test_a_harness_probe_runs_only_with_time_left_and_saves_its_table(repo, tmp_path):
    """`harness_probe` runs tools/harness_probe.py (a recording stand-in here) with --out in the
    call's probe folder, prints its status and table tail, saves; with too little of BUDGET left
    it says so and runs nothing."""
    (repo / "tools" / "harness_probe.py").write_text("")
    out = tmp_path / "out"
    out.mkdir()
    calls = repo / "calls.txt"
    (repo / "bin" / "python3").write_text('#!/bin/sh\necho "$@" >> "$CALLS"\necho "row-a"\necho "row-b"\nexit 0\n')
    env = {**os.environ, "PATH": f"{repo / 'bin'}:{os.environ['PATH']}", "CALLS": str(calls), "OUT": str(out),
           "BUDGET": "100"}
    script = ". tools/device_site.sh; call_begin aka-test-probe; harness_probe p1 30 1 OPDIR K.py --shape s; " \
             "harness_probe p2 95 1 OPDIR K.py"
    r = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[:2] == ["probe p1 rc 0", "row-b"]
    assert "probe p2 skipped" in r.stdout
    recorded = calls.read_text().splitlines()
    assert len(recorded) == 1 and recorded[0].startswith("tools/harness_probe.py OPDIR K.py --shape s --out ")
    assert recorded[0].endswith("/aka-test-probe/probe/p1.json")
    listing = subprocess.run(["tar", "tzf", str(out / "aka-test-probe.tgz")], capture_output=True, text=True).stdout
    assert "./probe/p1.txt" in listing.split()


def _tuner_repo(repo: Path, optimize: str) -> None:
    """tools/h200_optimize.sh replaced by OPTIMIZE (a shell body); python3 (the render) records its
    arguments and prints a table line."""
    (repo / "tools" / "h200_optimize.sh").write_text(optimize)
    (repo / "bin" / "python3").write_text('#!/bin/sh\necho "$@" >> "$CALLS"\necho "| op | rendered |"\n')


def _tuner_step(repo: Path, tmp_path: Path, budget: int) -> tuple[subprocess.CompletedProcess, Path]:
    out, stages = tmp_path / "out", tmp_path / "stages"
    out.mkdir(exist_ok=True)
    stages.mkdir(exist_ok=True)
    env = {**os.environ, "PATH": f"{repo / 'bin'}:{os.environ['PATH']}", "CALLS": str(repo / "calls.txt"),
           "OUT": str(out), "BUDGET": str(budget), "TMPDIR": str(stages)}
    script = '. tools/device_site.sh; call_begin aka-test-tuner; tuner_step "$W/opt" 0.5 rmsnorm softmax; ls "$W/opt"'
    return subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True), out


def test_a_tuner_step_passes_its_operators_and_keeps_what_the_run_wrote(repo, tmp_path):
    _tuner_repo(repo, 'echo "$@" > "$OUT/args.txt"; echo "{}" > "$OUT/optimize_bench.json"\n')
    r, out = _tuner_step(repo, tmp_path, budget=100)
    assert r.returncode == 0, r.stderr
    assert "optimize rc 0" in r.stdout and "optimize_bench.json" in r.stdout
    args = subprocess.run(["tar", "xzf", str(out / "aka-test-tuner.tgz"), "-O", "./opt/args.txt"],
                          capture_output=True, text=True).stdout.split()
    assert args == ["200", "rmsnorm", "softmax", "--time-limit", "0.5"]
    assert not (repo / "calls.txt").exists()                    # nothing to recover, nothing rendered


def test_a_tuner_step_cut_short_keeps_the_finished_operators_from_its_stage(repo, tmp_path):
    """The run outlives the budget (timeout = BUDGET - 20 s): it had written one operator's results
    to its stage folder; the step keeps them, their details and their rendering."""
    _tuner_repo(repo, 'st=$(mktemp -d "${TMPDIR:-/tmp}/aka-optimize-XXXXXX"); echo "{\\"ops\\": 1}" > '
                      '"$st/optimize_bench.json"; echo s > "$st/rmsnorm.stderr.txt"; sleep 30\n')
    r, out = _tuner_step(repo, tmp_path, budget=22)
    assert r.returncode == 0, r.stderr
    assert "optimize rc 124" in r.stdout
    listing = subprocess.run(["tar", "tzf", str(out / "aka-test-tuner.tgz")], capture_output=True, text=True).stdout
    assert {"./opt/optimize_bench.json", "./opt/details.tgz", "./opt/optimize_bench.md"} <= set(listing.split())
    assert "tools/optimize_bench.py --render" in (repo / "calls.txt").read_text()


def test_a_call_env_records_the_card_and_sets_the_path_the_wheels_and_the_cache(repo, tmp_path):
    """`call_env` after `call_begin`: the card's name printed and kept in card.txt, the repository on
    PYTHONPATH after the site the wheels went to, unbuffered Python, the kernel cache; 3 when pip fails."""
    out = tmp_path / "out"
    out.mkdir()
    (repo / "site").mkdir()
    (repo / "bin" / "nvidia-smi").write_text('#!/bin/sh\necho "NVIDIA H100 80GB HBM3"\n')
    (repo / "bin" / "nvidia-smi").chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("AKA_CACHE_DIR", "PYTHONUNBUFFERED")}
    env |= {"PATH": f"{repo / 'bin'}:{os.environ['PATH']}", "CALLS": str(repo / "calls.txt"), "OUT": str(out),
            "AKA_DEVICE_SITE": str(repo / "site"), "PYTHONPATH": "/x"}
    script = ('. tools/device_site.sh; call_begin aka-test-env; call_env; rc=$?; '
              'echo "$PYTHONPATH|$PYTHONUNBUFFERED|$AKA_CACHE_DIR|$(cat "$W/card.txt")"; exit $rc')
    r = subprocess.run(["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    card, line = r.stdout.splitlines()
    assert card == "card: NVIDIA H100 80GB HBM3"
    assert line == f"{repo / 'site'}:{repo}:/x|1|/tmp/aka-cache|NVIDIA H100 80GB HBM3"
    (repo / "site" / ".aka-wheels").unlink()
    r = subprocess.run(["bash", "-c", script], cwd=repo, env=env | {"PIP_RC": "1"}, capture_output=True, text=True)
    assert r.returncode == 3
