"""`aka.profile.api.profile` as the agent calls it, on the CPU: a fake launcher and a fake `ncu` (a
script that prints a real details page, or fails the way a crashing candidate makes it fail)."""

import os
import stat
import sys
from pathlib import Path

import pytest

from aka.errors import EnvironmentMissing
from aka.profile import api, runner
from aka.spec.load import load_op
from aka.spec.profile import ProfileOutcome

EVAL = Path(__file__).resolve().parents[1] / "evaluate"
SPEC = load_op(EVAL / "fixtures" / "rmsnorm")
CAND = EVAL / "candidates" / "honest_rmsnorm.py"
RMS = "direct_ncu_details_full_ncu2025.3.1_H200_generated.csv"
SAXPY_TR = "ncu_details_page_import_csv_print-details-all_print-units-base_ncu2025.3.1_H200_generated.csv"


def fake_tool(tmp_path: Path, monkeypatch, body: str) -> Path:
    """An `ncu` that runs `body` (sh); choose_tool returns it whatever is installed."""
    exe = tmp_path / "bin" / "ncu"
    exe.parent.mkdir(exist_ok=True)
    exe.write_text("#!/bin/sh\n" + body)
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setattr(runner, "choose_tool", lambda requested: ("ncu", str(exe)))
    return exe


def prints_page(page: Path) -> str:
    """The profiling call writes nothing; the export call prints `page`."""
    return f'case "$*" in *--import*) cat "{page}";; *) exit 0;; esac\n'


class RecordingLauncher:
    """Wraps the application's step with `env NAME=VALUE` and a fixed environment, and records it."""

    def __init__(self):
        self.calls = []

    def wrap(self, argv, workdir):
        self.calls.append((list(argv), Path(workdir)))
        return ["/usr/bin/env", "AKA_WRAPPED=1", *argv], {"PATH": os.environ["PATH"], "AKA_LAUNCHED": "yes"}


def test_ok_outcome_with_traffic_against_the_compulsory_bytes(tmp_path, monkeypatch, fx):
    fake_tool(tmp_path, monkeypatch, prints_page(fx(RMS)))
    launcher = RecordingLauncher()
    out = tmp_path / "p"
    got = api.profile(SPEC, CAND, "cpu-a", out_dir=out, compulsory_bytes=2 * 2**27, launcher=launcher)
    assert got.status == "ok" and got.report is not None and got.out_dir == str(out)
    assert "DRAM traffic 0.91× the compulsory 268 MB (244 MB moved)" in got.summary
    assert got.report.compulsory_bytes == 2 * 2**27 and got.report.calls == 1
    assert "top stalls (only those ncu's CPIStall rule flagged): long_scoreboard 60%" in got.summary
    (argv, workdir), = launcher.calls                      # only the step that runs the application
    assert argv[-len(api.driver_argv(SPEC, CAND, "cpu-a")):] == api.driver_argv(SPEC, CAND, "cpu-a")
    assert workdir.parent == out.parent and workdir.name.startswith(".staging-")
    assert {p.name for p in out.iterdir()} >= {"details.csv", "report.json", "summary.txt", "step1.log"}
    assert (out / "summary.txt").read_text().strip() == got.summary
    back = ProfileOutcome.from_dict(got.to_dict())
    assert back.report.kernels[0].dram_bytes == got.report.kernels[0].dram_bytes


def test_launcher_wraps_the_application_and_sets_its_environment(tmp_path, monkeypatch, fx):
    seen = tmp_path / "seen"
    fake_tool(tmp_path, monkeypatch, f'echo "$AKA_WRAPPED $AKA_LAUNCHED $*" >> "{seen}"\n' + prints_page(fx(RMS)))
    api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path / "p", launcher=RecordingLauncher(), iters=3,
                reference=True)
    profiling, export = seen.read_text().splitlines()
    assert profiling.startswith("1 yes --set full") and profiling.endswith("--iters 3 --reference")
    assert export.startswith(" yes --import")           # not wrapped, same environment


def test_env_launcher_scrubs_credentials(tmp_path, monkeypatch, fx):
    seen = tmp_path / "env"
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0")
    fake_tool(tmp_path, monkeypatch, f'env > "{seen}"\n' + prints_page(fx(RMS)))
    api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path / "p", launcher=api.EnvLauncher())
    env = dict(line.split("=", 1) for line in seen.read_text().splitlines() if "=" in line)
    assert "OPENAI_API_KEY" not in env and env["CUDA_VISIBLE_DEVICES"] == "0"
    assert str(Path(api.__file__).resolve().parents[2]) in env["PYTHONPATH"].split(os.pathsep)
    injected = api.EnvLauncher(lambda environ: {"ONLY": "this"})
    assert injected.wrap(["x"], tmp_path) == (["x"], {"ONLY": "this"})


def test_a_crashing_candidate_is_data_not_an_exception(tmp_path, monkeypatch):
    fake_tool(tmp_path, monkeypatch,
              'echo "Traceback (most recent call last):"; '
              'echo "torch.AcceleratorError: CUDA error: an illegal memory access was encountered" >&2; '
              'echo "==ERROR== The application returned an error code (1)."; exit 1\n')
    out = tmp_path / "p"
    got = api.profile(SPEC, CAND, "cpu-a", out_dir=out, launcher=RecordingLauncher())
    assert got.status == "app-failed" and got.report is None and got.files == []
    assert "illegal memory access" in got.log_tail and "illegal memory access" in got.summary
    assert got.summary.startswith("the candidate failed under ncu at shape cpu-a")
    assert {p.name for p in out.iterdir()} == {"step1.log", "summary.txt"}


def test_a_candidate_that_launches_nothing(tmp_path, monkeypatch):
    fake_tool(tmp_path, monkeypatch, 'echo "==PROF== Disconnected from process 1"; '
                                     'echo "==WARNING== No kernels were profiled."; exit 0\n')
    got = api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path / "p", launcher=RecordingLauncher())
    assert got.status == "no-kernels" and got.report is None and "saw no kernel launch" in got.summary


def test_a_hanging_candidate_is_killed_and_reported(tmp_path, monkeypatch):
    fake_tool(tmp_path, monkeypatch, 'sleep 30 & wait\n')
    got = api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path / "p", launcher=RecordingLauncher(), timeout_s=1)
    assert got.status == "app-failed" and "killed after 1 s" in got.log_tail


def test_the_tools_and_the_machines_faults_raise(tmp_path, monkeypatch):
    def missing(requested):
        raise EnvironmentMissing("ncu was not found: install Nsight Compute")

    monkeypatch.setattr(runner, "choose_tool", missing)
    with pytest.raises(EnvironmentMissing):
        api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path / "a")
    fake_tool(tmp_path, monkeypatch, 'echo "==ERROR== unrecognised option \'--print-details\'"; exit 1\n')
    with pytest.raises(EnvironmentMissing, match="rejected aka's command line"):
        api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path / "b", launcher=RecordingLauncher())
    assert not (tmp_path / "b").exists() and not list(tmp_path.glob(".staging-*"))


def test_bad_arguments_raise_before_anything_runs(tmp_path, monkeypatch):
    from aka.errors import CandidateError, InputError

    exe = fake_tool(tmp_path, monkeypatch, f'touch "{tmp_path}/ran"\n')
    with pytest.raises(CandidateError):
        api.profile(SPEC, tmp_path / "missing.py", "cpu-a", out_dir=tmp_path / "p")
    with pytest.raises(InputError, match="no shape 'nope'"):
        api.profile(SPEC, CAND, "nope", out_dir=tmp_path / "p")
    with pytest.raises(InputError, match="already exists"):
        api.profile(SPEC, CAND, "cpu-a", out_dir=tmp_path)
    assert exe.exists() and not (tmp_path / "ran").exists()


def never(spec, shape_id):
    raise AssertionError("an expression needs no count of the tensors")


def test_compulsory_bytes_from_an_op_expression():
    from dataclasses import replace

    spec = replace(SPEC, roofline=replace(SPEC.roofline, bytes="4 * n_rows * hidden"))
    assert api.compulsory_bytes_of(spec, "cpu-a") == 4 * 4 * 64
    assert api.compulsory_bytes_of(spec, "cpu-b", auto=never) == 4 * 3 * 100


def test_compulsory_bytes_of_a_shape_with_its_own_figures():
    from dataclasses import replace

    from aka.spec.op import ShapeWork

    spec = replace(SPEC, shape_work={"cpu-a": ShapeWork(flops={}, read_bytes=1000.0, write_bytes=24.0)})
    assert api.compulsory_bytes_of(spec, "cpu-a", auto=never) == 1024
    assert api.compulsory_bytes_of(spec, "cpu-b") is None          # bytes: auto, and no way to count it


def test_compulsory_bytes_auto_is_what_the_counter_counts():
    from aka.evaluate.auto_bytes import auto_bytes

    assert api.compulsory_bytes_of(SPEC, "cpu-a") is None
    assert api.compulsory_bytes_of(SPEC, "cpu-a", auto=lambda spec, sid: None) is None
    assert api.compulsory_bytes_of(SPEC, "cpu-a", auto=lambda spec, sid: 77) == 77.0
    n_rows, hidden = 4096, 4096                     # bfloat16 x and its output, and the weight
    assert api.compulsory_bytes_of(SPEC, "prefill", auto=auto_bytes) == (2 * n_rows * hidden + hidden) * 2


def test_driver_argv_names_the_driver_module():
    argv = api.driver_argv(SPEC, CAND, "prefill", iters=2, reference=True)
    assert argv[:3] == [sys.executable, "-m", "aka.evaluate.profile_driver"]
    assert argv[3:] == [str(Path(SPEC.path).resolve()), str(CAND.resolve()), "--shapes", "prefill",
                        "--iters", "2", "--reference"]


def test_driver_argv_can_name_the_compiled_reference():
    assert api.driver_argv(SPEC, CAND, "prefill", compiled=True)[-1] == "--compile"
    assert "--compile" not in api.driver_argv(SPEC, CAND, "prefill", reference=True)


def test_profiling_both_eager_and_compiled_reference_is_refused(tmp_path):
    import pytest

    from aka.errors import InputError

    with pytest.raises(InputError, match="not both"):
        api.profile(SPEC, CAND, SPEC.shapes[0].id, out_dir=tmp_path / "p", reference=True, compiled=True)
