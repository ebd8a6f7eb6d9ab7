"""Batch tests: the aka command as a subprocess, the fixture suites, and the rule that Ray starts
only inside a loopback-only network namespace (its dashboard probes the cloud-metadata address
and it looks up a public address for its own IP on every start)."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
REPO = HERE.parents[1]
ATREX = HERE.parent / "spec" / "fixtures" / "atrex"
KERNELBENCH = FIXTURES / "kernelbench"


def aka(*args, cwd, timeout=300, check=None):
    """Run `aka ARGS` as a subprocess; returns (exit code, stdout, stderr)."""
    env = {**os.environ, "AKA_DEVICE": "cpu"}
    proc = subprocess.run([sys.executable, "-m", "aka", *map(str, args)], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    if check is not None:
        assert proc.returncode == check, proc.stderr[-3000:]
    return proc.returncode, proc.stdout, proc.stderr


def aka_json(*args, cwd, check=None):
    rc, out, err = aka(*args, "--json", cwd=cwd, check=check)
    return rc, json.loads(out)


def level_folder(tmp_path, *problems):
    """A KernelBench level folder in tmp holding copies of the named fixture problems."""
    d = tmp_path / "level1"
    d.mkdir()
    for p in problems:
        shutil.copy(KERNELBENCH / "KernelBench" / "level1" / f"{p}.py", d)
    return d


@pytest.fixture(autouse=True)
def ray_only_in_loopback(monkeypatch):
    """No test starts Ray in this process: ray.init refuses outside a loopback-only namespace."""
    try:
        import ray
    except ImportError:
        yield
        return
    from aka.batch.ray_exec import loopback_only

    real = ray.init

    def guarded(*args, **kwargs):
        if not loopback_only():
            raise RuntimeError("tests start Ray only inside a loopback-only network namespace (loopback fixture)")
        return real(*args, **kwargs)

    monkeypatch.setattr(ray, "init", guarded)
    yield


@pytest.fixture
def loopback():
    """Run a command inside a new network namespace with only loopback up (skips without unshare)."""
    if not shutil.which("unshare") or not shutil.which("ip"):
        pytest.skip("unshare and ip are needed to start Ray inside a loopback-only network namespace")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot create a network namespace here: {probe.stderr.decode()[-200:]}")

    def run(argv, cwd, timeout=300):
        script = "ip link set lo up && exec \"$@\""
        return subprocess.run(["unshare", "-n", "sh", "-c", script, "sh", *map(str, argv)], cwd=cwd,
                              capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", "AKA_DEVICE": "cpu"})

    return run
