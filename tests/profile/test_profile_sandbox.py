"""The profiler path runs in the sandbox: a fake `ncu` (a script that execs the application it is
given) runs a hostile candidate through `aka.profile.api.profile`, `aka profile` and the loop's
PlatformProfiler; the candidate writes nothing outside its folder, finds no planted secret and
reaches no port. Where the sandbox's layers are missing, the env-scrubbing fallback is a warning."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from aka.cli.main import build_app
from aka.cli.optimize_profile import PlatformProfiler
from aka.profile import api, launch
from aka.sandbox import Sandbox
from aka.spec.load import load_op

CHECKOUT = Path(__file__).resolve().parents[2]
EVAL = CHECKOUT / "tests" / "evaluate"
SPEC = load_op(EVAL / "fixtures" / "rmsnorm")
HOSTILE = Path(__file__).with_name("candidates") / "hostile_profiled.py"
HONEST = EVAL / "candidates" / "honest_rmsnorm.py"
RMS = "direct_ncu_details_full_ncu2025.3.1_H200_generated.csv"

FAKE_NCU = """#!/bin/sh
# stands in for ncu: the profiling step notes its pid, then runs the application, which follows
# ncu's own options (the last of them is --force-overwrite); the export step prints {page}
case "$*" in *--import*) {export}; exit 0;; esac
echo "$$" > fake_ncu_pid.txt
{app}
"""
RUN_APP = 'while [ $# -gt 0 ] && [ "$1" != "--force-overwrite" ]; do shift; done; shift; exec "$@"'



def sandboxed() -> None:
    """Skip unless this machine gives the profiler the layers the test checks."""
    layers = Sandbox().layers()
    missing = [name for name in launch.NEEDED_LAYERS if not layers.get(name)]
    if missing:
        pytest.skip(f"this machine cannot give the sandbox these layers: {', '.join(missing)}")


def fake_ncu(tmp_path: Path, monkeypatch, page: Path | None = None) -> Path:
    """A fake `ncu` first on PATH (the runner finds the profiler there); with a `page`, it runs no
    application (none runs on the CPU) and its export step prints the page."""
    exe = tmp_path / "bin" / "ncu"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text(FAKE_NCU.format(page=page or "nothing", export=f'cat "{page}"' if page else "true",
                                   app="exit 0" if page else RUN_APP))
    exe.chmod(0o755)                                    # runnable by nobody too
    monkeypatch.setenv("PATH", f"{exe.parent}{os.pathsep}{os.environ['PATH']}")
    return exe


@pytest.fixture
def hostile(tmp_path, monkeypatch):
    """Plants a secret (in this process's environment, and in the environment and command line of
    a sentinel process), listens on a port, and tells the candidate where to try to write."""
    secret = f"sk-test-planted-{random.randrange(10**12):012d}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    sentinel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)", secret],
                                env={**os.environ, "OPENAI_API_KEY": secret})
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    name = f"aka-hostile-{os.getpid()}-{random.randrange(10**6)}"
    targets = list(dict.fromkeys([CHECKOUT / name, Path(SPEC.path).parent / name, Path("/root") / name,
                                  Path.home() / name, Path("/tmp") / name, tmp_path / name]))

    def plan(paths=targets):
        monkeypatch.setenv("AKA_TEST_HOSTILE_PLAN", json.dumps(
            {"targets": [str(p) for p in paths], "needle": secret[::-1], "port": listener.getsockname()[1]}))

    plan()
    try:
        yield plan, targets
    finally:
        sentinel.kill()
        sentinel.wait()
        listener.close()
        for t in targets:
            if t.exists():
                t.unlink()


def contained(found_in: Path, targets: list[Path]) -> dict:
    """What the candidate saw, checked: it ran, wrote nothing outside, found no secret, reached nothing."""
    found_file = found_in / "hostile_found.json"
    assert found_file.is_file(), f"the candidate did not run: {sorted(p.name for p in found_in.iterdir())}"
    found = json.loads(found_file.read_text())
    assert found["written"] == [], found
    assert found["leaks"] == [] and found["readable"] > 0, found
    assert found["connected"] is False, found
    for t in targets:
        assert not t.exists(), f"{t} was written by a profiled candidate"
    return found


def test_the_check_would_see_an_unconfined_candidate(hostile, tmp_path, monkeypatch):
    """Control: run without the sandbox (writing only under tmp_path), the same candidate finds
    the secret and reaches the port, so the sandboxed runs below prove something."""
    plan, _ = hostile
    harmless = tmp_path / "harmless-target"
    plan([harmless])
    fake_ncu(tmp_path, monkeypatch)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    api.profile(SPEC, HOSTILE, "cpu-a", out_dir=tmp_path / "p", tool="ncu", launcher=api.EnvLauncher())
    found = json.loads((cwd / "hostile_found.json").read_text())
    assert found["written"] == [str(harmless)] and found["connected"] is True
    assert found["leaks"], "the sentinel's planted secret should be visible without the sandbox"


def test_profile_runs_a_hostile_candidate_in_the_sandbox(hostile, tmp_path, monkeypatch):
    sandboxed()
    _, targets = hostile
    fake_ncu(tmp_path, monkeypatch)
    out = tmp_path / "p"
    got = api.profile(SPEC, HOSTILE, "cpu-a", out_dir=out, tool="ncu")
    assert got.warnings == [] and got.status == "app-failed"      # no GPU: the driver fails after the import
    found = contained(out, targets)
    assert found["pid"] <= 5 and int((out / "fake_ncu_pid.txt").read_text()) <= 3  # own PID namespace
    assert "aka.sandbox.enter" in (out / "step1.log").read_text()


def test_a_candidate_dropped_to_nobody_is_contained_too(hostile, tmp_path, monkeypatch):
    sandboxed()
    _, targets = hostile
    fake_ncu(tmp_path, monkeypatch)
    out = tmp_path / "p"
    api.profile(SPEC, HOSTILE, "cpu-a", out_dir=out, tool="ncu", launcher=api.SandboxLauncher(privileges="drop"))
    contained(out, targets)


def test_aka_profile_runs_the_candidate_in_the_sandbox(hostile, tmp_path, monkeypatch):
    sandboxed()
    _, targets = hostile
    fake_ncu(tmp_path, monkeypatch)
    out = tmp_path / "cli"
    res = CliRunner().invoke(build_app(), ["profile", str(SPEC.path), str(HOSTILE), "--shape", "cpu-a",
                                           "--tool", "ncu", "--out", str(out), "--json"])
    doc = json.loads(res.stdout)
    assert res.exit_code == 1 and doc["status"] == "app-failed" and doc["warnings"] == [], res.stdout
    contained(out, targets)


def test_the_loops_profiler_runs_the_candidate_in_the_sandbox(hostile, tmp_path, monkeypatch):
    sandboxed()
    _, targets = hostile
    fake_ncu(tmp_path, monkeypatch)
    profiler = PlatformProfiler.detect()
    assert profiler is not None and profiler.tool == "ncu" and profiler.launcher is None
    out = tmp_path / "loop"
    summary, report = profiler.profile(SPEC, HOSTILE, "cpu-a", None, out)
    assert summary.startswith("[app-failed]") and report is None
    contained(out, targets)


def test_a_sandboxed_profile_parses_as_before(tmp_path, monkeypatch, fx):
    sandboxed()
    fake_ncu(tmp_path, monkeypatch, page=fx(RMS))
    monkeypatch.setattr(launch, "counters_open_to_all", lambda: False)
    out = tmp_path / "p"
    got = api.profile(SPEC, HONEST, "cpu-a", out_dir=out, tool="ncu")
    assert got.status == "ok" and got.warnings == [] and got.report.warnings == []
    assert int((out / "fake_ncu_pid.txt").read_text()) <= 3


def test_without_the_namespaces_the_fallback_is_a_warning(tmp_path, monkeypatch, fx):
    from aka.sandbox import wrap

    monkeypatch.setattr(wrap, "probe", lambda: {name: name in ("limits", "die-with-parent") for name in wrap.LAYERS})
    fake_ncu(tmp_path, monkeypatch, page=fx(RMS))
    monkeypatch.chdir(tmp_path)                           # unconfined, the fake ncu writes in its folder
    got = api.profile(SPEC, HONEST, "cpu-a", out_dir=tmp_path / "p", tool="ncu")
    assert got.status == "ok" and len(got.warnings) == 1
    assert "run without the sandbox here (missing layers: network, pid, mount, home)" in got.warnings[0]
    assert got.report.warnings[-1] == got.warnings[0]
    res = CliRunner().invoke(build_app(), ["profile", str(SPEC.path), str(HONEST), "--shape", "cpu-a",
                                           "--tool", "ncu", "--out", str(tmp_path / "cli"), "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["warnings"] == got.warnings
    assert "warning: the profiler and the candidate run without the sandbox" in res.stderr


def test_default_launcher_chooses_by_layers_and_counters(monkeypatch, tmp_path):
    params = tmp_path / "params"
    params.write_text("ResmanDebugLevel: 4294967295\nRmProfilingAdminOnly: 0\n")
    assert launch.counters_open_to_all(str(params))
    params.write_text("RmProfilingAdminOnly: 1\n")
    assert not launch.counters_open_to_all(str(params))
    assert not launch.counters_open_to_all(str(tmp_path / "missing"))
    full = {name: True for name in launch.NEEDED_LAYERS}
    monkeypatch.setattr(launch, "counters_open_to_all", lambda: False)
    assert launch.default_launcher(full) == (api.SandboxLauncher(privileges="keep"), [])
    monkeypatch.setattr(launch, "counters_open_to_all", lambda: True)
    assert launch.default_launcher(full)[0].privileges == "drop"
    got, warnings = launch.default_launcher({**full, "pid": False})
    assert isinstance(got, api.SandboxLauncher) and warnings == [
        "the profiler's sandbox lacks the layers: pid (see aka doctor)"]
    got, warnings = launch.default_launcher({**full, "mount": False})
    assert isinstance(got, api.EnvLauncher) and "missing layers: mount" in warnings[0]


def test_the_sandbox_reads_the_operator_the_candidate_and_the_tool(tmp_path):
    launcher, _ = launch.resolve(api.SandboxLauncher(), ["/op/op.yaml", "/op/reference.py", "/c/cand.py"])
    argv, env = launcher.wrap(["/opt/tool/bin/ncu", "--set", "full"], tmp_path)
    exposed = [argv[i + 1] for i, a in enumerate(argv) if a == "--expose"]
    assert exposed == ["/op/op.yaml", "/op/reference.py", "/c/cand.py", "/opt/tool/bin"]
    assert argv[argv.index("--privileges") + 1] == "keep" and argv[-3:] == ["/opt/tool/bin/ncu", "--set", "full"]
    assert env["HOME"] == str(tmp_path.resolve()) and "OPENAI_API_KEY" not in env
    recording = api.EnvLauncher(lambda environ: {"ONLY": "this"})
    assert launch.resolve(recording, ["/x"]) == (recording, [])
