"""The sandbox on this machine: a hostile program wrapped by `Sandbox.wrap`, or forked by
`confine.spawn`, writes nothing outside its folder, sees no secret of another process, signals
nothing outside, reaches no network and leaves no process behind."""

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aka.sandbox import LAYERS, Limits, Sandbox
from aka.sandbox.wrap import probe

PROBE = Path(__file__).with_name("hostile_probe.py")
CHECKOUT = Path(__file__).parents[2]
isolated = pytest.mark.skipif(not all(probe()[k] for k in ("network", "pid", "mount")),
                              reason="this machine cannot give the sandbox its namespaces")


def _sleepers(tag: str) -> list[str]:
    return subprocess.run(["pgrep", "-f", f"sleep {tag}"], capture_output=True, text=True).stdout.split()


@pytest.fixture
def hostile(tmp_path):
    """(secret planted in this process's environment, sentinel process, files it must not write)."""
    tag = f"{random.randint(900, 999)}.{random.randint(10, 99)}"
    secret = f"must-not-leak-{tag}"
    os.environ["AKA_SANDBOX_TEST_API_KEY"] = secret
    sentinel = subprocess.Popen(["sleep", "600"])
    name = f"aka-sandbox-test-{os.getpid()}-{tag}"
    targets = [CHECKOUT / name, Path.home() / name, Path("/tmp") / name, tmp_path / name]
    try:
        yield secret, sentinel, targets, tag
    finally:
        sentinel.kill()
        del os.environ["AKA_SANDBOX_TEST_API_KEY"]
        for t in targets:
            t.unlink(missing_ok=True)


def _check(seen: dict, sentinel, targets, tag, workdir: Path) -> None:
    assert seen["written"] == [str(workdir / targets[0].name)] or seen["written"] == []
    assert seen["leaks"] == [] and seen["readable"] > 0
    assert not seen["signalled"] and sentinel.poll() is None
    assert seen["interfaces"] in ([], ["lo"]) and seen["network"] is False
    for t in targets[:3]:
        assert not t.exists(), f"{t} was written from inside the sandbox"
    end = time.time() + 5
    while _sleepers(tag) and time.time() < end:
        time.sleep(0.1)
    assert _sleepers(tag) == [], "processes started inside outlived the sandbox"


@isolated
def test_wrapped_program_is_contained(hostile, tmp_path):
    secret, sentinel, targets, tag = hostile
    workdir = tmp_path / "job"
    workdir.mkdir()
    argv, env = Sandbox(limits=Limits(cpu_s=60)).wrap(
        [sys.executable, str(PROBE), secret[::-1], str(sentinel.pid), *map(str, targets[:3]), str(workdir / targets[0].name)],
        workdir)
    assert not any(secret in v for v in env.values())
    out = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.splitlines()[-1])
    _check(seen, sentinel, targets, tag, workdir)
    assert seen["written"] == [str(workdir / targets[0].name)]
    assert seen["uid"] != 0


SPAWN = """
import json, os, sys
from aka.sandbox.confine import spawn
from aka.sandbox.limits import Limits
workdir, jobs, probe = sys.argv[1], sys.argv[2], sys.argv[3:]
leak_r, leak_w = os.pipe()                     # a descriptor the child must not inherit
pid = spawn(workdir, Limits(cpu_s=60), mask=[jobs], keep_fds=(1, 2))
if pid == 0:
    sys.argv = [probe[0]] + probe[1:]
    fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
    sys.stderr.write(json.dumps({"fds": fds, "others": os.listdir(jobs)}) + "\\n")
    exec(compile(open(probe[0]).read(), probe[0], "exec"))
    os._exit(0)
_, status = os.waitpid(pid, 0)
print(json.dumps({"status": status}))
"""


@isolated
def test_spawned_child_is_contained_and_holds_no_inherited_descriptor(hostile, tmp_path):
    secret, sentinel, targets, tag = hostile
    jobs = tmp_path / "jobs"
    workdir, other = jobs / "mine", jobs / "other"
    workdir.mkdir(parents=True)
    other.mkdir()
    (other / "reference_output.txt").write_text("the trusted side's data")
    env = {**os.environ, "PYTHONPATH": str(CHECKOUT)}
    out = subprocess.run([sys.executable, "-c", SPAWN, str(workdir), str(jobs), str(PROBE), secret[::-1],
                          str(sentinel.pid), *map(str, targets[:3]), str(workdir / targets[0].name)],
                         capture_output=True, text=True, timeout=60, env=env)
    lines = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert lines and lines[-1]["status"] == 0, out.stderr
    seen = lines[0]
    inside = json.loads(next(line for line in out.stderr.splitlines() if line.startswith('{"fds"')))
    assert inside["fds"] == [0, 1, 2, 3]                    # 3: the listing's own descriptor
    assert inside["others"] == ["mine"], "other job folders are hidden"
    _check(seen, sentinel, targets, tag, workdir)


def test_layers_name_every_layer_and_without_unshare_none_of_the_namespaces():
    layers = Sandbox().layers()
    assert list(layers) == list(LAYERS)
    off = Sandbox(enabled=False).layers()
    assert off["network"] is False and off["pid"] is False and off["limits"] is True


def test_limits_round_trip():
    lim = Limits(cpu_s=5, address_space_bytes=1 << 30)
    assert Limits.from_dict(json.loads(json.dumps(lim.to_dict()))) == lim
