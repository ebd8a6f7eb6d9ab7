"""Compiling shipped candidates ahead (the GPU path's bookkeeping, checked here without a GPU): only
aka's own code is queued, in order, spread over the processes; one batch at a time; the warming
process traces models on `meta` and makes launches compile-only."""

import json
from pathlib import Path

import types

import pytest

from aka.evaluate import warm
from aka.evaluate.loading import Operator
from aka.evaluate.warm import KernelWarmer, processes_for
from aka.spec.candidate import Candidate
from aka.spec.load import load_op

ROOT = Path(__file__).parents[2]
RMSNORM = load_op(ROOT / "suites" / "llm-inference" / "rmsnorm")
KERNELS = ROOT / "reference_kernels" / "rmsnorm"


class FakeProcess:
    def __init__(self, argv, env):
        self.argv, self.env, self.code, self.terminated = argv, env, None, False

    def poll(self):
        return self.code

    def terminate(self):
        self.terminated, self.code = True, -15

    def wait(self, timeout=None):
        return self.code


def _cands(n, origin="tuner"):
    src = (KERNELS / "blocked_columns.py").read_text()
    return [Candidate(src, {"NUM_WARPS": 1 + k}, origin, f"c{k}", family="rmsnorm/blocked_columns.py")
            for k in range(n)]


def test_processes_leave_cores_to_the_judge():
    assert processes_for(2) == 1 and processes_for(16) == 12 and processes_for(64) == 12 and processes_for(None) == 1


def test_only_shipped_candidates_are_queued_in_order_and_spread(tmp_path):
    started = []
    w = KernelWarmer(tmp_path / "shipped", processes=2, spawn=lambda argv, env: started.append(FakeProcess(argv, env)) or started[-1])
    try:
        queued = w.submit({"name": "rmsnorm"}, "bfloat16", [{"n_rows": 1}], _cands(3) + _cands(1, origin="llm"))
        assert queued == 3 and len(started) == 2
        jobs = [json.loads(Path(p.argv[-1]).read_text()) for p in started]
        files = [f for job in jobs for f in job["files"]]
        assert len(files) == 3 and jobs[0]["files"][0].endswith(f"{_cands(1)[0].short}.py")    # the first, first
        assert Path(files[0]).read_text() == _cands(1)[0].materialize()
        assert jobs[0]["shipped"] == str(tmp_path / "shipped") and jobs[0]["dtype"] == "bfloat16"
        assert all("TRITON_INTERPRET" not in p.env and p.env["TRITON_CACHE_DIR"] for p in started)
        assert w.submit({}, "bfloat16", [], _cands(5)) == 2 and len(started) == 2   # busy: queued only
        for p in started:
            p.code = 0
        assert w.submit({}, "bfloat16", [], _cands(5)) == 0 and len(started) == 4   # the queue starts
    finally:
        w.close()
    assert not w.folder.exists()


def test_close_stops_a_running_batch(tmp_path):
    procs = []
    w = KernelWarmer(tmp_path / "shipped", processes=1, spawn=lambda a, e: procs.append(FakeProcess(a, e)) or procs[-1])
    w.submit({}, "float32", [], _cands(2))
    w.close()
    assert procs and all(p.terminated for p in procs)


def test_launches_become_compilations_with_their_launchers(monkeypatch):
    from triton.runtime import driver
    from triton.runtime.jit import JITFunction

    seen, built = [], []
    compiled = types.SimpleNamespace(src="ast source", metadata="metadata")
    monkeypatch.setattr(JITFunction, "run", lambda self, *a, grid, warmup, **k: seen.append(warmup) or compiled)
    fake = types.SimpleNamespace(launcher_cls=lambda src, metadata: built.append((src, metadata)))
    monkeypatch.setattr(driver, "_active", fake, raising=False)
    monkeypatch.setattr(type(driver), "active", property(lambda self: fake), raising=False)
    warm.compile_only()
    assert JITFunction.run(object(), 1, grid=(1,), warmup=False) is compiled
    assert seen == [True] and built == [("ast source", "metadata")]
    warm.build_launcher(object())                 # a kernel without a source: nothing raised


@pytest.mark.parametrize("kernel", sorted(p.name for p in KERNELS.glob("*.py")))
def test_every_rmsnorm_kernel_traces_on_meta(monkeypatch, kernel):
    """In the warming process nothing runs: inputs and the model live on `meta`. Here launches are
    made no-ops (the interpreter cannot compile), so what is checked is that every shipped rmsnorm
    kernel's model reaches its launches on `meta` at every GPU shape."""
    from triton.runtime.interpreter import InterpretedFunction

    monkeypatch.setattr(InterpretedFunction, "run", lambda self, *a, **k: None)
    op = Operator(RMSNORM.to_dict(), "meta", RMSNORM.dtype)
    visible, held = RMSNORM.run_shapes(False)
    shapes = [s.params for s in list(visible) + list(held)]
    assert warm.warm_file(op, str(KERNELS / kernel), f"t_{kernel[:-3]}", shapes) == len(shapes)


def test_an_autotuned_kernel_is_left_to_its_candidate(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("import triton\n# @triton.autotune(configs=[])\nclass ModelNew: pass\n")
    op = Operator(RMSNORM.to_dict(), "meta", RMSNORM.dtype)
    assert warm.warm_file(op, str(path), "t_auto", [{"n_rows": 1, "hidden": 8}]) == 0


def test_batches_stay_short_and_a_later_submit_ranks_what_is_still_queued(tmp_path):
    """One process: two files a batch; what the latest submit lists first is compiled next, the
    queued files it does not list keep their place behind."""
    started = []
    w = KernelWarmer(tmp_path / "shipped", processes=1, spawn=lambda a, e: started.append(FakeProcess(a, e)) or started[-1])
    c = _cands(5)

    def batch(p):
        return [Path(f).stem for f in json.loads(Path(p.argv[-1]).read_text())["files"]]
    try:
        assert w.submit({}, "bfloat16", [], c) == 5 and len(started) == 1
        assert batch(started[0]) == [c[0].short, c[1].short]
        started[0].code = 0
        assert w.submit({}, "bfloat16", [], [c[4], c[3]]) == 0 and len(started) == 2
        assert batch(started[1]) == [c[4].short, c[3].short]
        started[1].code = 0
        assert w.submit({}, "bfloat16", [], []) == 0 and batch(started[2]) == [c[2].short]
    finally:
        w.close()
