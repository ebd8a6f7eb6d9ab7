"""`aka export` of the recorded session: the package imports, registers its custom op, passes its own
pytest file on the CPU interpreter (float32) — torch.compile of a small model calling it included —
and a session without an accepted kernel is refused with exit 1."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from aka.cli.main import build_app
from tests.replay.conftest import FIXTURE, snapshot

runner = CliRunner()
ROOT = Path(__file__).parents[2]


def export(session, out):
    return runner.invoke(build_app(), ["export", str(session), "--out", str(out), "--json"])


def test_exported_package_passes_its_own_tests(tmp_path):
    before = snapshot(FIXTURE)
    res = export(FIXTURE, tmp_path / "out")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["op"] == "aka::rmsnorm" and doc["package"] == "aka_rmsnorm"
    out = tmp_path / "out"
    readme = (out / "README.md").read_text()
    assert "20261203-084516-rmsnorm" in readme and "CPU (Triton interpreter)" in readme and "v003" in readme
    assert "ModelNew" in (out / "aka_rmsnorm" / "kernel.py").read_text()
    # a small model calling the op, compiled with the default backend, beside the package's own tests
    (out / "test_small_model.py").write_text(SMALL_MODEL)
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": "", "AKA_EXPORT_COMPILE_BACKEND": "aot_eager"}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                          "-p", "no:randomly", str(out)], cwd=out, env=env, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "9 passed" in run.stdout, run.stdout[-1500:]
    assert snapshot(FIXTURE) == before


SMALL_MODEL = '''
import torch
import aka_rmsnorm


class Block(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.proj = torch.nn.Linear(hidden, hidden)
        self.norm = aka_rmsnorm.Op(hidden)
        with torch.no_grad():
            self.norm.weight.fill_(1.5)

    def forward(self, x):
        return self.norm(torch.relu(self.proj(x))) * 2


def test_op_registered_under_its_name():
    assert "rmsnorm" in dir(torch.ops.aka)
    schema = str(torch.ops.aka.rmsnorm.default._schema)
    assert schema.startswith("aka::rmsnorm(Tensor x, Tensor[] params, str init) -> Tensor"), schema


def test_small_model_under_torch_compile():
    torch.manual_seed(0)
    model = Block(96).eval()
    x = torch.randn(4, 96)
    with torch.no_grad():
        eager = model(x)
        compiled = torch.compile(model, fullgraph=True)(x)
        h = torch.relu(model.proj(x)).float()
        expected = 1.5 * h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + 1e-5) * 2
    torch.testing.assert_close(eager, expected, atol=1e-4, rtol=1e-4)
    torch.testing.assert_close(compiled, expected, atol=1e-4, rtol=1e-4)
'''


def test_session_without_an_accepted_kernel_is_refused(tmp_path):
    session = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, session)
    shutil.rmtree(session / "best")
    res = export(session, tmp_path / "out")
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["ok"] is False and "no accepted kernel" in doc["message"]
    assert not (tmp_path / "out").exists()


def test_export_never_writes_into_the_session(tmp_path):
    session = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, session)
    res = export(session, session / "exported")
    assert res.exit_code == 2 and "never writes into the session" in res.output


def test_a_winner_that_failed_its_end_of_session_evaluation_is_refused(tmp_path):
    from aka.sessions.folder import SessionFolder
    from aka.spec.result import EvalStatus, Rejection

    session = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, session)
    folder = SessionFolder(session)
    best = folder.best_version()
    result = folder.get_eval(best)
    result.status, result.rejections = EvalStatus.WRONG, [Rejection("wrong-output", "differs at a shape")]
    folder.put_confirmed(best, result)
    res = export(session, tmp_path / "out")
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["ok"] is False and "was wrong when evaluated again at the end of the session" in doc["message"]
    assert not (tmp_path / "out").exists()
