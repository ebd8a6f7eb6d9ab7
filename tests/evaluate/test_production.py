"""Production baselines (op.yaml `production:`): timed by the judge beside eager, checked against the
reference first (a wrong one is the operator's fault, exit 2 naming its file), skipped on the CPU
where it needs a GPU; the suites' production modules match their references."""

import io
import json
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from aka.cli.main import build_app
from aka.cli.render import render_eval
from aka.errors import SpecError
from aka.evaluate.evaluator import EvalOptions, Evaluator
from aka.evaluate.loading import Operator
from aka.evaluate import judge
from aka.spec.load import load_op
from aka.spec.op import OpSpec
from aka.spec.result import EvalResult

HERE = Path(__file__).parent
OP = HERE / "fixtures" / "rmsnorm_production"
HONEST = str(HERE / "candidates" / "honest_rmsnorm.py")
ROOT = HERE.parents[1]
SUITE_OPS = sorted(p.parent for p in ROOT.glob("suites/*/*/op.yaml")
                   if "production:" in p.read_text())
runner = CliRunner()


def run(*args):
    return runner.invoke(build_app(), [str(a) for a in args])


def copy_op(tmp_path: Path, forward: str, requires: str = "") -> Path:
    """The fixture operator with another production forward body (and `requires:`)."""
    shutil.copytree(OP, tmp_path / "op")
    shutil.copy(HERE / "fixtures" / "rmsnorm" / "reference.py", tmp_path / "op" / "reference.py")
    yaml = (tmp_path / "op" / "op.yaml").read_text().replace("../rmsnorm/reference.py", "reference.py")
    (tmp_path / "op" / "op.yaml").write_text(yaml.replace("  note:", requires + "  note:"))
    prod = tmp_path / "op" / "production.py"
    text = prod.read_text()
    prod.write_text(text[: text.index("        return F.rms_norm")] + forward + "\n")
    return tmp_path / "op"


def test_eval_times_production_beside_eager_and_names_it():
    res = run("eval", OP, HONEST, "--json", "--shape", "cpu-a")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    timed = data["shapes"][0]
    assert set(timed["baselines"]) == {"eager", "production"}
    assert timed["baselines"]["production"]["method"] == "cpu-interpreter"
    assert timed["speedup"] == {}                        # interpreter times: no speedups
    assert any("production baseline: ATen's fused RMSNorm via F.rms_norm (production.py)" in n
               for n in data["notes"])
    console = Console(file=io.StringIO(), width=200)
    render_eval(EvalResult.from_dict(data), console)
    table = console.file.getvalue()
    header = next(line for line in table.splitlines() if "shape" in line)
    assert "production" in header and "× production" not in header          # no speedup on the CPU


def test_speedup_over_production_on_a_gpu_reply():
    """The GPU path's arithmetic, from a reply as the judge sends it on a GPU."""
    spec = load_op(OP)
    t = {"median_us": 10.0, "iqr_us": 0.1, "cv": 0.01, "reps": 100, "method": "graph"}
    row = {"id": "prefill", "params": {"n_rows": 4096, "hidden": 4096}, "held_out": False, "correct": True,
           "time": t, "baselines": {"eager": {**t, "median_us": 40.0}, "production": {**t, "median_us": 15.0}}}
    ev = Evaluator.__new__(Evaluator)
    ev.interpreter = False
    shape = ev._shape(spec, row, {"kind": "cuda", "name": "unknown GPU"})
    assert shape.speedup == {"eager": 4.0, "production": 1.5}


def test_wrong_production_is_the_operators_fault(tmp_path):
    op = copy_op(tmp_path, "        return x * self.weight")
    res = run("eval", op, HONEST, "--json")
    data = json.loads(res.stdout)
    assert res.exit_code == 2 and data["error_type"] == "SpecError", res.output
    assert data["file"] == str(op / "production.py") and data["field"] == "production"
    assert "does not match the reference's at shape cpu-a" in data["message"]


def test_production_that_raises_names_its_line(tmp_path, evaluator):
    op = copy_op(tmp_path, "        return x.no_such_method()")
    with pytest.raises(SpecError) as err:
        evaluator.evaluate(load_op(op), HONEST, EvalOptions(shapes=("cpu-a",)))
    assert err.value.path == str(op / "production.py") and err.value.line == 14
    assert "production baseline failed (forward)" in err.value.message and err.value.exit_code == 2
    with pytest.raises(SpecError, match="production baseline failed"):     # the agent's cache too
        evaluator.time_baselines(load_op(op), {"cpu-a": None})


def test_gpu_only_production_is_skipped_on_the_cpu_with_a_note(tmp_path, evaluator):
    op = copy_op(tmp_path, "        raise RuntimeError('needs a GPU')", requires="  requires: [gpu]\n")
    res = evaluator.evaluate(load_op(op), HONEST, EvalOptions(shapes=("cpu-a",)))
    assert res.accepted and set(res.shapes[0].baselines) == {"eager"}
    assert any("skipped on the CPU interpreter: it needs a GPU" in n for n in res.notes)


def test_the_agents_cached_baselines_include_production(evaluator):
    got = evaluator.time_baselines(load_op(OP), {"cpu-a": None})
    assert set(got["cpu-a"]) == {"eager", "production"}


def test_baseline_option_and_spec_round_trip():
    spec = load_op(OP)
    assert spec.baselines == ("eager", "torch.compile", "production")
    assert OpSpec.from_dict(spec.to_dict()) == spec
    res = run("eval", HERE / "fixtures" / "rmsnorm", HONEST, "--baseline", "production")
    assert res.exit_code == 2 and "names no production baseline" in res.output


@pytest.mark.parametrize("folder", SUITE_OPS, ids=lambda p: p.name)
def test_suite_production_modules_match_their_references(folder):
    spec = load_op(folder)
    assert spec.production and spec.production.library and "production" in spec.baselines
    if "gpu" in spec.production.requires:
        pytest.skip(f"{spec.name}: its production module calls a GPU-only library ({spec.production.library}; "
                    "op.yaml production.requires: [gpu]), so it is checked against the reference by the harness "
                    "on a GPU, not on this CPU")
    op = Operator(spec.to_dict(), "cpu", "float32")
    tol = spec.tolerance_for("float32")
    for i, shape in enumerate(spec.cpu_shapes + spec.cpu_held_out_shapes):
        ref = op.build(shape.params, i)
        prod = op.build_production(shape.params, i, ref)
        judge.check_production(op, ref, prod, op.make_inputs(shape.params, 100 + i), tol, shape.id)


def test_the_suites_name_production_where_torch_has_it():
    names = {p.name for p in SUITE_OPS}
    assert {"prefill_attention_causal", "conv2d_3x3_nhwc"} <= names


def _gpu_production_cases():
    import torch
    if not torch.cuda.is_available():
        return [pytest.param(None, None, id="none")]
    return [pytest.param(folder, shape, id=f"{folder.name}::{shape.id}") for folder in SUITE_OPS
            for shape in (lambda s: s.shapes + s.held_out_shapes)(load_op(folder))]


@pytest.mark.gpu
@pytest.mark.parametrize("folder,shape", _gpu_production_cases())
def test_suite_production_modules_match_their_references_on_a_gpu(folder, shape):
    """On a GPU, in the operator's dtype, at every shape and held-out shape: the check the judge
    makes before it times a production module (a module that fails it stops every evaluation of
    its operator with exit 2, so it is run here first)."""
    import torch
    if folder is None:
        pytest.skip("needs a CUDA device")
    spec = load_op(folder)
    op = Operator(spec.to_dict(), "cuda", spec.dtype)
    ref = op.build(shape.params, 0)
    prod = op.build_production(shape.params, 0, ref)
    with torch.no_grad():
        judge.check_production(op, ref, prod, op.make_inputs(shape.params, 100), spec.tolerance_for(spec.dtype),
                               shape.id)


def _fake_scaled_mm(calls):
    """torch._scaled_mm as cuBLASLt ran it correctly on an H100 (torch 2.11, 2026-12-05): m, k, n
    multiples of 4/16/16, activation scales m-major, weight scales k-block-major with kb % 4 == 0
    (any other layout was refused or silently wrong there); returns the dequantized product."""
    import torch

    def fake(a, bt, sa, sb, out_dtype):
        m, k = a.shape
        n, kb = bt.shape[1], -(-k // 128)
        assert m % 4 == 0 and k % 16 == 0 and n % 16 == 0, (m, k, n)
        assert sa.shape == (m, kb) and sa.stride() == (1, m), (sa.shape, sa.stride())
        assert kb % 4 == 0 and sb.shape == (kb, -(-n // 128)) and sb.stride() == (1, kb), (sb.shape, sb.stride())
        calls.append((m, k, n))
        return _block_scaled_product(a, sa, bt.t(), sb.t()).to(out_dtype)
    return fake


def _block_scaled_product(a, sa, b, sb):
    """a [m, k] times b [n, k].T in fp32, a scaled per (row, 128-group), b per 128 x 128 block."""
    k, n = a.shape[1], b.shape[0]
    af = a.float() * sa.repeat_interleave(128, 1)[:, :k]
    bf = b.float() * sb.repeat_interleave(128, 0)[:n].repeat_interleave(128, 1)[:, :k]
    return af @ bf.t()


def test_fp8_production_pads_to_the_layout_cublaslt_runs_and_keeps_padded_weights(monkeypatch):
    import importlib.util
    import torch
    spec = importlib.util.spec_from_file_location(
        "fp8_production", ROOT / "suites/llm-inference/fp8_block_scaled_gemm/production.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls = []
    monkeypatch.setattr(torch, "_scaled_mm", _fake_scaled_mm(calls))
    gen = torch.Generator().manual_seed(0)
    mod = module.Production()
    # m = 1 and kb = 18 (k 2304), odd n and k, kb = 8 unpadded: every case the H100 refused or got wrong
    for m, n, k, want in [(1, 300, 2304, (16, 2560, 304)), (7, 130, 1400, (16, 1536, 144)), (5, 40, 1000, (16, 1008, 48)), (32, 256, 1024, (32, 1024, 256))]:
        kb, nb = -(-k // 128), -(-n // 128)
        a = torch.randn(m, k, generator=gen).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, generator=gen).to(torch.float8_e4m3fn)
        sa, sb = torch.rand(m, kb, generator=gen) + 0.5, torch.rand(nb, kb, generator=gen) + 0.5
        ref = _block_scaled_product(a, sa, b, sb)
        out = mod(a.view(torch.uint8), sa, b.view(torch.uint8), sb, torch.float32)
        assert calls[-1] == want and out.shape == (m, n) and out.dtype == torch.float32
        torch.testing.assert_close(out, ref, atol=0.02 * ref.abs().max().item(), rtol=0.02)
    weights = [torch.zeros(16, 2304, dtype=torch.uint8) for _ in range(module.HELD + 1)]
    scale, x, xs = torch.ones(1, 18), torch.zeros(4, 2304, dtype=torch.uint8), torch.ones(4, 18)
    mod = module.Production()
    for w in weights + weights[-2:]:        # the last two again: found, not padded afresh
        mod(x, xs, w, scale, torch.bfloat16)
    assert len(mod._held) == module.HELD
    assert all(e[0] is w for e, w in zip(list(mod._held.values())[-2:], weights[-2:]))
    weights[-1][0, 0] = 56                  # changed in place: its version moves, so it is padded again
    mod(x, xs, weights[-1], scale, torch.bfloat16)
    assert mod._held[next(reversed(mod._held))][2].view(torch.uint8)[0, 0] == 56
