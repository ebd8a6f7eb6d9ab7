"""Compiling shipped candidates ahead (the GPU path's bookkeeping, checked here without a GPU): only
aka's own code is queued, in order, spread over long-lived processes, one batch per idle process;
the warming process serves job files from its stdin, traces models on `meta` and makes launches
compile-only."""

import io
import json
import sys
import time
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
    """A warming process that takes job lines on stdin; `finish` plays it writing `<job>.done`."""

    def __init__(self, argv, env):
        self.argv, self.env, self.code, self.terminated = argv, env, None, False
        self.stdin = io.StringIO()

    def jobs(self):
        return [json.loads(Path(line).read_text()) for line in self.stdin.getvalue().splitlines()]

    def batch(self, k=-1):
        return [Path(f).stem for f in self.jobs()[k]["files"]]

    def finish(self):
        Path(self.stdin.getvalue().splitlines()[-1]).with_suffix(".done").write_text("")

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


def _warmer(tmp_path, processes):
    started = []
    w = KernelWarmer(tmp_path / "shipped", processes=processes,
                     spawn=lambda argv, env: started.append(FakeProcess(argv, env)) or started[-1])
    return w, started


def test_only_shipped_candidates_are_queued_in_order_and_spread(tmp_path):
    w, started = _warmer(tmp_path, processes=2)
    try:
        queued = w.submit({"name": "rmsnorm"}, "bfloat16", [{"n_rows": 1}], _cands(3) + _cands(1, origin="llm"))
        assert queued == 3 and len(started) == 2
        jobs = [p.jobs()[0] for p in started]
        files = [f for job in jobs for f in job["files"]]
        assert len(files) == 3 and jobs[0]["files"][0].endswith(f"{_cands(1)[0].short}.py")    # the first, first
        assert Path(files[0]).read_text() == _cands(1)[0].materialize()
        assert jobs[0]["shipped"] == str(tmp_path / "shipped") and jobs[0]["dtype"] == "bfloat16"
        assert all("TRITON_INTERPRET" not in p.env and p.env["TRITON_CACHE_DIR"] for p in started)
        assert [job["cache"] for job in jobs] == [p.env["TRITON_CACHE_DIR"] for p in started]
        assert w.busy() and w.submit({}, "bfloat16", [], _cands(5)) == 2 and len(started) == 2   # busy: queued only
        started[1].finish()
        assert w.submit({}, "bfloat16", [], _cands(5)) == 0                      # the idle one takes the queue
        assert len(started) == 2 and len(started[1].jobs()) == 2 and len(started[0].jobs()) == 1
        assert started[1].jobs()[1]["cache"] == started[1].env["TRITON_CACHE_DIR"]
    finally:
        w.close()
    assert not w.folder.exists() and all(p.terminated for p in started)


def test_close_stops_a_running_batch(tmp_path):
    w, procs = _warmer(tmp_path, processes=1)
    w.submit({}, "float32", [], _cands(2))
    w.close()
    assert procs and all(p.terminated for p in procs)


def test_a_process_that_died_is_replaced_and_its_batch_left_to_the_candidates(tmp_path):
    w, started = _warmer(tmp_path, processes=1)
    c = _cands(4)
    try:
        w.submit({}, "bfloat16", [], c)
        assert started[0].batch() == [c[0].short, c[1].short]
        started[0].code = -9
        assert not w.busy()
        w.submit({}, "bfloat16", [], [])
        assert len(started) == 2 and started[1].batch() == [c[2].short, c[3].short]
        assert started[1].env["TRITON_CACHE_DIR"] != started[0].env["TRITON_CACHE_DIR"]
    finally:
        w.close()


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
    assert not [m for m in sys.modules if m.startswith(f"aka_t_{kernel[:-3]}_")]   # dropped: the process lives on


def test_an_autotuned_kernel_is_left_to_its_candidate(tmp_path):
    path = tmp_path / "k.py"
    path.write_text("import triton\n# @triton.autotune(configs=[])\nclass ModelNew: pass\n")
    op = Operator(RMSNORM.to_dict(), "meta", RMSNORM.dtype)
    assert warm.warm_file(op, str(path), "t_auto", [{"n_rows": 1, "hidden": 8}]) == 0


def test_a_kernel_whose_text_only_names_an_autotuner_is_warmed(monkeypatch, tmp_path):
    """Five shipped kernels cite Inductor's autotune records in their docstrings; that is no
    autotuner of their own, so the warmer traces them like any other (launches made no-ops, as in
    the meta test above)."""
    from triton.runtime.interpreter import InterpretedFunction

    monkeypatch.setattr(InterpretedFunction, "run", lambda self, *a, **k: None)
    source = (KERNELS / "one_row_registers.py").read_text()
    path = tmp_path / "k.py"
    path.write_text(source.replace('"""\n', '"""\nInductor\'s autotune record chose 16 warps here.\n', 1))
    assert "autotune record" in path.read_text()
    op = Operator(RMSNORM.to_dict(), "meta", RMSNORM.dtype)
    assert warm.warm_file(op, str(path), "t_cites", [{"n_rows": 2, "hidden": 64}]) == 1


def test_batches_stay_short_and_a_later_submit_ranks_what_is_still_queued(tmp_path):
    """One process: two files a batch; what the latest submit lists first is compiled next, the
    queued files it does not list keep their place behind; the same process serves every batch."""
    w, started = _warmer(tmp_path, processes=1)
    c = _cands(5)
    try:
        assert w.submit({}, "bfloat16", [], c) == 5 and len(started) == 1
        assert started[0].batch() == [c[0].short, c[1].short]
        started[0].finish()
        assert w.submit({}, "bfloat16", [], [c[4], c[3]]) == 0 and started[0].batch() == [c[4].short, c[3].short]
        started[0].finish()
        assert w.submit({}, "bfloat16", [], []) == 0 and started[0].batch() == [c[2].short]
        assert len(started) == 1 and len(started[0].jobs()) == 3
    finally:
        w.close()


def test_the_warming_process_serves_job_lines_and_marks_each_done(tmp_path, monkeypatch):
    """Every line is a batch; one Operator per spec for the process's life; a batch that fails
    is still marked done (its candidates compile themselves)."""
    warmed, ops = [], []
    monkeypatch.setattr(warm, "compile_only", lambda: None)
    monkeypatch.setattr(warm, "warm_file", lambda op, path, tag, shapes: warmed.append((path, tag)) or 1)
    monkeypatch.setattr(warm.kernel_cache, "publish_folder", lambda mine, target: 0)
    import aka.evaluate.loading as loading
    monkeypatch.setattr(loading, "Operator", lambda spec, device, dtype: ops.append(spec) or object())
    jobs = []
    for k, files in enumerate([["a.py", "b.py"], ["c.py"]]):
        jobs.append(tmp_path / f"job-{k}.json")
        jobs[-1].write_text(json.dumps({"spec": {"name": "x"}, "dtype": "float32", "shapes": [{}],
                                        "cache": "c", "shipped": "s", "files": files}))
    broken = tmp_path / "job-broken.json"
    broken.write_text("{not json")
    lines = [f"{jobs[0]}\n", "\n", f"{broken}\n", f"{jobs[1]}\n"]
    assert warm.serve(lines) == 3
    assert [p for p, _ in warmed] == ["a.py", "b.py", "c.py"] and len({t for _, t in warmed}) == 3
    assert len(ops) == 1
    assert all(j.with_suffix(".done").exists() for j in [*jobs, broken])


def test_a_real_warming_process_lives_for_the_session(tmp_path):
    """The real process (no GPU here: its compiles fail and are skipped): it takes a batch, marks it
    done, takes the next one without restarting, and ends when the warmer closes."""
    w = KernelWarmer(tmp_path / "shipped", processes=1)
    spec = RMSNORM.to_dict()

    def settle():
        deadline = time.monotonic() + 120
        while w.busy() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not w.busy()
    try:
        c = _cands(2)
        w.submit(spec, "float32", [{"n_rows": 2, "hidden": 8}], c[:1])
        assert len(w.workers) == 1
        proc = w.workers[0].proc
        settle()
        w.submit(spec, "float32", [{"n_rows": 2, "hidden": 8}], c[1:])
        assert w.workers[0].proc is proc   # busy() right here would race: a batch of failing compiles can end first
        settle()
        assert proc.poll() is None and len(list(w.folder.glob("*.done"))) == 2
    finally:
        w.close()
    assert proc.poll() is not None
