"""`aka kb` through typer's CliRunner on a private app (main.py wires `register`)."""

from __future__ import annotations

import json

import pytest
import typer
from typer.testing import CliRunner

from aka.cli.kb_cmd import register

from .conftest import write


@pytest.fixture
def run(tmp_path, monkeypatch):
    app = typer.Typer()
    register(app)

    @app.callback()
    def _root() -> None:
        """aka (test app)."""

    monkeypatch.setenv("AKA_KB_DIR", str(tmp_path / "kb"))
    runner = CliRunner()
    return lambda *args: runner.invoke(app, ["kb", *args])


def test_ingest_search_stats_json(run, docs_tree, monkeypatch):
    monkeypatch.chdir(docs_tree)
    res = run("ingest", "knowledge", "--embedder", "hash", "--json")
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)["added"]) == 4
    res = run("search", "lts__t_sector_hit_rate", "--json", "-k", "2")
    doc = json.loads(res.stdout)
    assert res.exit_code == 0 and doc["results"][0]["source"] == "knowledge/general.md"
    assert {"source", "layer", "heading", "score"} <= set(doc["results"][0])
    res = run("search", "bulk copies", "--vendor", "amd", "--json", "-k", "10")
    assert "knowledge/hopper.md" not in {r["source"] for r in json.loads(res.stdout)["results"]}
    stats = json.loads(run("stats", "--json").stdout)
    assert stats["layers"]["docs"]["files"] == 4 and stats["vendor"]["nvidia"] == 1
    assert {"op", "vendor", "arch", "dsl"} <= set(stats)
    human = run("search", "online softmax running maximum")
    assert human.exit_code == 0 and "knowledge/softmax.md" in human.stdout


def test_bad_input_exits_2_with_the_name(run, tmp_path):
    res = run("ingest", str(tmp_path / "missing"), "--embedder", "hash")
    assert res.exit_code == 2 and "missing" in res.stderr
    res = run("search", "x", "--layer", "bogus")
    assert res.exit_code == 2 and "bogus" in res.stderr
    res = run("ingest", str(tmp_path), "--embedder", "nope")
    assert res.exit_code == 2 and "nope" in res.stderr


def test_broken_doc_reported_rest_ingested(run, docs_tree, monkeypatch):
    monkeypatch.chdir(docs_tree)
    write(docs_tree, "knowledge/bad.md", "---\ntitle: [unclosed\n---\n# Bad\n")
    res = run("ingest", "knowledge", "--embedder", "hash", "--json")
    assert res.exit_code == 1
    assert "knowledge/bad.md:2" in res.stderr
    assert len(json.loads(res.stdout)["added"]) == 4


def test_incompatible_index_then_rebuild(run, docs_tree, tmp_path, monkeypatch):
    monkeypatch.chdir(docs_tree)
    assert run("ingest", "knowledge", "--embedder", "hash").exit_code == 0
    manifest = tmp_path / "kb" / "aka-kb.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "format": 99}))
    res = run("stats")
    assert res.exit_code == 2 and "aka kb rebuild" in res.stderr
    res = run("rebuild", "--embedder", "hash", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(run("stats", "--json").stdout)["layers"]["docs"]["files"] == 4


def test_eval_reports_recall_and_mrr(run, docs_tree, tmp_path, monkeypatch):
    monkeypatch.chdir(docs_tree)
    queries = write(tmp_path, "q.yaml", """
        - query: mbarrier bulk tile copies
          expect: [knowledge/hopper.md]
        - query: pad LDS rows to avoid bank conflicts
          expect: knowledge/amd.md
        - query: rescale the running sum when the max grows
          expect: [knowledge/softmax.md]
    """)
    assert run("eval", "--queries", str(queries)).exit_code == 2  # empty index
    run("ingest", "knowledge", "--embedder", "hash")
    res = run("eval", "--queries", str(queries), "--json")
    doc = json.loads(res.stdout)
    assert res.exit_code == 0 and doc["layers"]["docs"]["queries"] == 3
    assert doc["layers"]["docs"]["recall@5"] == 1.0 and doc["overall"]["mrr"] > 0.5
