"""A batch on a local Ray instance, started only inside a loopback-only network namespace (Ray's
dashboard probes the cloud-metadata address and Ray looks up a public address on every start)."""

import json
from pathlib import Path

import pytest

from .conftest import ATREX, FIXTURES

ray = pytest.importorskip("ray", reason="Ray is not installed (the test extra brings it: pip install -e '.[test]'); "
                                       "the Ray batch is not run")


def test_ray_refuses_to_start_outside_the_loopback_namespace():
    with pytest.raises(RuntimeError, match="loopback-only network namespace"):
        ray.init(include_dashboard=False)


def test_eval_batch_on_local_ray(tmp_path, loopback):
    import sys

    proc = loopback([sys.executable, FIXTURES / "ray_driver.py", ATREX, FIXTURES / "atrex_candidates",
                     tmp_path / "sessions"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    board = out["scoreboard"]
    assert out["ok"] and board["done"] == 2 and board["real_kernel_share"] == 1.0
    run = Path(out["run"])
    for op in ("add_rms_norm", "silu_mul"):
        rec = json.loads((run / "ops" / op / "result.json").read_text())
        assert rec["device"]["kind"] == "cpu" and rec["device"]["host"]          # filed from the Ray node
        assert json.loads((run / "ops" / op / "eval.json").read_text())["status"] == "accepted"
    assert "RayExecutor" in (run / "events.jsonl").read_text()
