"""Under --json every command prints exactly one JSON document, failures included (exit 2 bad
input, 3 environment missing); the human message still goes to stderr."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from aka.cli.common import handled
from aka.cli.main import build_app
from aka.errors import SpecError, WorkerError
from aka.profile import runner as profile_runner

HERE = Path(__file__).parents[1] / "evaluate"
OP = str(HERE / "fixtures" / "rmsnorm")
CAND = str(HERE / "candidates" / "honest_rmsnorm.py")
KEYS = {"ok", "status", "exit_code", "error_type", "message", "file", "field", "line"}


def run(*args):
    return CliRunner().invoke(build_app(), list(args))


def error_doc(res, code: int, error_type: str) -> dict:
    """The one JSON document of a failure, checked against the exit status and stderr."""
    assert res.exit_code == code, (res.stdout, res.stderr)
    doc = json.loads(res.stdout)  # exactly one document: json.loads refuses trailing data
    assert KEYS <= set(doc)
    assert doc["ok"] is False and doc["status"] == "error"
    assert doc["exit_code"] == code and doc["error_type"] == error_type
    assert doc["message"] and doc["message"] in res.stderr  # the human message is still on stderr
    return doc


# --- aka eval ----------------------------------------------------------------------------------

def test_eval_bad_op_path_is_a_spec_error_document(tmp_path):
    doc = error_doc(run("eval", str(tmp_path / "nope"), CAND, "--json"), 2, "SpecError")
    assert doc["file"] == str(tmp_path / "nope")


def test_eval_invalid_op_yaml_names_file_and_field(tmp_path):
    (tmp_path / "op.yaml").write_text("name: x\nreference: ref.py\ndtype: bf16\nshapes: []\n")
    doc = error_doc(run("eval", str(tmp_path), CAND, "--json"), 2, "SpecError")
    assert doc["field"] == "reference" and doc["file"].endswith("op.yaml")


def test_eval_unknown_shape_and_missing_candidate(tmp_path):
    doc = error_doc(run("eval", OP, CAND, "--shape", "nope", "--json"), 2, "CandidateError")
    assert "unknown shape" in doc["message"] and doc["file"] is None
    doc = error_doc(run("eval", OP, str(tmp_path / "missing.py"), "--json"), 2, "CandidateError")
    assert "candidate file not found" in doc["message"]


def test_eval_bad_parameter_in_the_command_body_is_a_document():
    doc = error_doc(run("eval", OP, CAND, "--device", "tpu", "--json"), 2, "InputError")
    assert "--device must be auto, cuda or cpu" in doc["message"]
    doc = error_doc(run("eval", OP, CAND, "--baseline", "numpy", "--json"), 2, "InputError")
    assert "numpy" in doc["message"]


def test_without_json_failures_leave_stdout_empty(tmp_path):
    res = run("eval", str(tmp_path / "nope"), CAND)
    assert res.exit_code == 2 and res.stdout == "" and "aka: error:" in res.stderr
    res = run("eval", OP, CAND, "--device", "tpu")
    assert res.exit_code == 2 and res.stdout == "" and "--device must be" in res.stderr


# --- aka profile -------------------------------------------------------------------------------

@pytest.fixture
def no_profilers(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.setattr(profile_runner, "SEARCH", {k: [] for k in profile_runner.SEARCH})


def test_profile_missing_profiler_is_exit_3(no_profilers):
    doc = error_doc(run("profile", OP, CAND, "--tool", "ncu", "--json"), 3, "EnvironmentMissing")
    assert "ncu was not found" in doc["message"]
    doc = error_doc(run("profile", OP, CAND, "--json"), 3, "EnvironmentMissing")
    assert "no profiler found" in doc["message"]


def test_profile_unknown_tool_bad_op_and_bad_shape_are_exit_2(no_profilers, tmp_path):
    doc = error_doc(run("profile", OP, CAND, "--tool", "perf", "--json"), 2, "InputError")
    assert "'perf'" in doc["message"]
    doc = error_doc(run("profile", str(tmp_path / "nope"), CAND, "--json"), 2, "SpecError")
    assert doc["file"] == str(tmp_path / "nope")
    doc = error_doc(run("profile", OP, CAND, "--shape", "nope", "--json"), 2, "InputError")
    assert "nope" in doc["message"]
    error_doc(run("profile", OP, "--json"), 2, "InputError")


def test_profile_parse_without_files_and_unparseable_files(tmp_path):
    error_doc(run("profile", "--parse", "--json"), 2, "InputError")
    bad = tmp_path / "notes.txt"
    bad.write_text("title: not a profile\n")
    doc = error_doc(run("profile", "--parse", str(bad), str(tmp_path / "gone.csv"), "--json"), 2,
                    "ProfileParseError")
    assert [e["file"] for e in doc["errors"]] == [str(bad), str(tmp_path / "gone.csv")]


# --- aka kb ------------------------------------------------------------------------------------

def test_kb_errors_are_documents(tmp_path, monkeypatch):
    monkeypatch.setenv("AKA_KB_DIR", str(tmp_path / "kb"))
    doc = error_doc(run("kb", "ingest", str(tmp_path / "missing"), "--embedder", "hash", "--json"), 2,
                    "InputError")
    assert "missing" in doc["message"]
    doc = error_doc(run("kb", "search", "tiles", "--layer", "bogus", "--json"), 2, "InputError")
    assert "bogus" in doc["message"]
    error_doc(run("kb", "search", "   ", "--json"), 2, "InputError")
    error_doc(run("kb", "eval", "--json"), 2, "KnowledgeError")  # the index is empty


# --- aka doctor --------------------------------------------------------------------------------

@pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1" and __import__("torch").cuda.is_available(),
                    reason="on a GPU --calibrate runs")
def test_doctor_calibrate_without_gpu_is_exit_3_document():
    doc = error_doc(run("doctor", "--calibrate", "--json"), 3, "EnvironmentMissing")
    assert "needs a CUDA GPU" in doc["message"]


# --- handled() itself --------------------------------------------------------------------------

def _app(json_out: bool, exc: Exception) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def boom() -> None:
        """Raise `exc` inside handled()."""
        with (handled(json_out=json_out) if json_out else handled()):
            raise exc

    return app


def test_handled_without_arguments_keeps_stdout_empty():
    res = CliRunner().invoke(_app(False, SpecError("op.yaml", "dtype", "unknown dtype", line=3)), [])
    assert res.exit_code == 2 and res.stdout == ""
    assert "aka: error: op.yaml:3: field 'dtype': unknown dtype" in res.stderr


def test_handled_carries_file_field_line_and_worker_errors_exit_1():
    res = CliRunner().invoke(_app(True, SpecError("op.yaml", "dtype", "unknown dtype", line=3)), [])
    doc = error_doc(res, 2, "SpecError")
    assert (doc["file"], doc["field"], doc["line"]) == ("op.yaml", "dtype", 3)
    doc = error_doc(CliRunner().invoke(_app(True, WorkerError("the worker died")), []), 1, "WorkerError")
    assert doc["message"] == "the worker died"
