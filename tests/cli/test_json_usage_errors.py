"""--json keeps its promise of exactly one JSON document when the command line itself is wrong
(unknown option, missing argument or value, bad value for a typed option): exit status 2, the
document on stdout, click's message on stderr. Without --json, click's usual message alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer.main
from typer.testing import CliRunner

from aka.cli.main import build_app

HERE = Path(__file__).parents[1] / "evaluate"
OP = str(HERE / "fixtures" / "rmsnorm")
CAND = str(HERE / "candidates" / "honest_rmsnorm.py")
KEYS = {"ok", "status", "exit_code", "error_type", "message", "file", "field", "line"}

# command → (what is wrong, its arguments after the command, the field the document names)
CASES = {
    ("eval",): [("unknown option", [OP, CAND, "--bogus"], "--bogus"),
                ("missing argument", [OP], "candidate"),
                ("bad value", [OP, CAND, "--trials", "many"], "--trials")],
    ("optimize",): [("unknown option", [OP, "--bogus"], "--bogus"),
                    ("missing option value", [OP, "--iterations"], "--iterations"),
                    ("bad value", [OP, "--iterations", "0"], "--iterations")],
    ("profile",): [("unknown option", [OP, CAND, "--bogus"], "--bogus"),
                   ("missing option value", [OP, CAND, "--shape"], "--shape"),
                   ("bad value", [OP, CAND, "--iters", "x"], "--iters")],
    ("doctor",): [("unknown option", ["--bogus"], "--bogus"),
                  ("extra argument", ["extra"], None)],
    ("replay",): [("unknown option", ["s", "--bogus"], "--bogus"),
                  ("missing argument", [], "session"),
                  ("missing option value", ["s", "--html"], "--html")],
    ("export",): [("unknown option", ["s", "--bogus"], "--bogus"),
                  ("missing argument", [], "session"),
                  ("missing option value", ["s", "--out"], "--out")],
    ("batch",): [("unknown option", ["s", "--bogus"], "--bogus"),
                 ("missing option value", ["s", "--mode"], "--mode"),
                 ("bad value", ["s", "--iterations", "0"], "--iterations")],
    ("report",): [("unknown option", ["r", "--bogus"], "--bogus"),
                  ("missing argument", [], "run")],
    ("compare",): [("unknown option", ["a", "b", "--bogus"], "--bogus"),
                   ("missing argument", ["a"], "run_b")],
    ("kb", "ingest"): [("unknown option", ["docs", "--bogus"], "--bogus"),
                       ("missing argument", [], "paths"),
                       ("bad value", ["docs", "--max-bytes", "lots"], "--max-bytes")],
    ("kb", "search"): [("unknown option", ["q", "--bogus"], "--bogus"),
                       ("missing argument", [], "query"),
                       ("bad value", ["q", "-k", "x"], "-k")],
    ("kb", "stats"): [("unknown option", ["--bogus"], "--bogus"),
                      ("missing option value", ["--kb-dir"], "--kb-dir"),
                      ("extra argument", ["extra"], None)],
    ("kb", "eval"): [("unknown option", ["--bogus"], "--bogus"),
                     ("missing option value", ["--queries"], "--queries"),
                     ("bad value", ["-k", "x"], "-k")],
    ("kb", "rebuild"): [("unknown option", ["--bogus"], "--bogus"),
                        ("missing option value", ["--kb-dir"], "--kb-dir")],
}
PARAMS = [pytest.param(cmd, args, field, id=f"{' '.join(cmd)}: {what}")
          for cmd, cases in CASES.items() for what, args, field in cases]


def run(args):
    return CliRunner().invoke(build_app(), args)


def commands_with_json(command, path=()) -> set[tuple[str, ...]]:
    """Every command (as its path of names) that takes --json."""
    found = set()
    if any("--json" in getattr(p, "opts", ()) for p in command.params):
        found.add(path)
    for name, sub in getattr(command, "commands", {}).items():
        found |= commands_with_json(sub, (*path, name))
    return found


def test_every_command_with_json_is_covered():
    assert commands_with_json(typer.main.get_command(build_app())) == set(CASES)


@pytest.mark.parametrize("cmd, args, field", PARAMS)
def test_a_parse_error_under_json_is_one_document(cmd, args, field):
    res = run([*cmd, "--json", *args])
    assert res.exit_code == 2, (res.stdout, res.stderr)
    doc = json.loads(res.stdout)                       # exactly one document: json.loads refuses trailing data
    assert KEYS <= set(doc)
    assert doc["ok"] is False and doc["status"] == "error" and doc["exit_code"] == 2
    assert doc["error_type"] == "UsageError" and doc["field"] == field
    assert doc["message"] and doc["message"] in res.stderr


@pytest.mark.parametrize("cmd, args, field", PARAMS)
def test_without_json_click_reports_it_alone(cmd, args, field):
    res = run([*cmd, *args])
    assert res.exit_code == 2 and res.stdout == "" and "Error" in res.stderr


@pytest.mark.parametrize("args, message", [(["--json"], "No such option: --json"),
                                           (["nosuch", "--json"], "No such command 'nosuch'"),
                                           (["kb", "nosuch", "--json"], "No such command 'nosuch'")])
def test_the_group_level_errors_too(args, message):
    res = run(args)
    assert res.exit_code == 2
    doc = json.loads(res.stdout)
    assert doc["error_type"] == "UsageError" and message in doc["message"]


def test_json_after_a_double_dash_is_not_the_flag():
    res = run(["kb", "search", "--bogus", "--", "--json"])
    assert res.exit_code == 2 and res.stdout == ""
