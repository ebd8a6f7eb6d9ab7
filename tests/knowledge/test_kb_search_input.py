"""`aka kb search` refuses filter values no chunk carries (listing the known ones) and empty queries."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from aka.cli.kb_cmd import register
from aka.knowledge import InMemoryKnowledgeBase
from aka.knowledge.ingest import ingest

from .conftest import write


@pytest.fixture
def run(tmp_path, monkeypatch, docs_tree):
    app = typer.Typer()
    register(app)

    @app.callback()
    def _root() -> None:
        """aka (test app)."""

    monkeypatch.setenv("AKA_KB_DIR", str(tmp_path / "kb"))
    monkeypatch.chdir(docs_tree)
    runner = CliRunner()
    invoke = lambda *args: runner.invoke(app, ["kb", *args])  # noqa: E731
    assert invoke("ingest", "knowledge", "--embedder", "hash").exit_code == 0
    return invoke


@pytest.mark.parametrize("flag, value, known", [
    ("--vendor", "nvida", ["any", "amd", "nvidia"]),
    ("--arch", "sm100", ["any", "gfx942", "sm90"]),
    ("--dsl", "cutlass", ["any", "cuda", "hip", "triton"]),
    ("--op", "rmsnorm", ["any", "gemm", "softmax"]),
])
def test_unknown_filter_values_are_exit_2_and_list_the_known_ones(run, flag, value, known):
    res = run("search", "tiles", flag, value)
    assert res.exit_code == 2 and res.stdout == ""
    assert f"{flag} {value!r}" in res.stderr and f"known: {', '.join(known)}" in res.stderr
    doc = json.loads(run("search", "tiles", flag, value, "--json").stdout)
    assert doc["ok"] is False and doc["exit_code"] == 2 and f"known: {', '.join(known)}" in doc["message"]


@pytest.mark.parametrize("flag, value", [("--vendor", "NVIDIA"), ("--arch", "sm90"), ("--dsl", "triton"),
                                         ("--op", "softmax"), ("--vendor", "any")])
def test_known_values_and_any_still_search(run, flag, value):
    res = run("search", "bulk copies", flag, value, "--json")
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["results"]


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_empty_query_is_exit_2(run, query):
    res = run("search", query)
    assert res.exit_code == 2 and "QUERY is empty" in res.stderr
    assert json.loads(run("search", query, "--json").stdout)["error_type"] == "InputError"


def test_tag_values_gathers_every_layer(docs_tree, tmp_path):
    kb = InMemoryKnowledgeBase()
    ingest(kb, [docs_tree / "knowledge"], "docs")
    write(tmp_path, "ref/k.py", '"""\n---\nop: rmsnorm\nstrategy: one-row\ndsl: triton\nvendors: [nvidia]\n'
                                'archs: [sm80]\n---\nA kernel.\n"""\n')
    assert not ingest(kb, [tmp_path / "ref"], "reference").skipped
    values = kb.tag_values()
    assert values["op"] >= {"gemm", "softmax", "rmsnorm"} and "sm80" in values["arch"]
    assert values["vendor"] == {"amd", "nvidia"}
    assert "rmsnorm" not in kb.tag_values(["docs"])["op"]
