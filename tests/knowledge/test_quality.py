"""The labelled query set is well formed and the fake-embedder baseline meets a floor."""

from __future__ import annotations

from aka.knowledge import InMemoryKnowledgeBase, ingest
from aka.knowledge.quality import evaluate, load_queries, stats

from .conftest import REPO

QUERIES = REPO / "tests" / "knowledge" / "queries.yaml"


def test_labelled_set_is_large_and_points_at_real_files():
    queries = load_queries(QUERIES)
    assert len(queries) >= 40
    assert {q.layer for q in queries} >= {"docs", "reference"}
    missing = [e for q in queries for e in q.expect if not (REPO / e).is_file()]
    assert not missing


def test_every_doc_has_sources_for_its_numbers():
    from aka.knowledge.frontmatter import doc_meta, split_front_matter

    for path in sorted((REPO / "knowledge").glob("*.md")):
        data, body, _, lines = split_front_matter(path.read_text(), str(path))
        meta = doc_meta(data, str(path), key_lines=lines)
        if path.name != "README.md":
            assert meta.sources, f"{path.name} cites nothing"


def test_eval_and_stats_with_the_fake_embedder():
    kb = InMemoryKnowledgeBase()
    report = ingest(kb, [REPO / "knowledge", REPO / "reference_kernels"], root=REPO)
    assert not [s for s in report.skipped if "field" in s.reason]
    result = evaluate(kb, load_queries(QUERIES))
    assert result["overall"]["recall@5"] >= 0.85 and result["overall"]["mrr"] >= 0.75
    counts = stats(kb)
    assert counts["layers"]["docs"]["files"] >= 15 and counts["dsl"]["triton"] >= 1
