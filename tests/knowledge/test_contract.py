"""The contract every KnowledgeBase backend passes (in-memory and Chroma, fake embedder)."""

from __future__ import annotations

import pytest

from aka.knowledge import Chunk, KnowledgeBase, Scope, ingest


def chunk(source: str, i: int, text: str, layer: str = "docs", **tags) -> Chunk:
    return Chunk(id=f"{layer}:{source}:{i}", layer=layer, source=source, text=text, file_hash=f"h-{source}",
                 heading=("Doc", f"part {i}"), **tags)


def test_is_a_knowledge_base(store):
    assert isinstance(store, KnowledgeBase)
    assert store.count() == 0 and store.chunks("docs") == [] and store.search("anything") == []


def test_put_indexed_chunks_count(store):
    store.put("docs", {"a.md": [chunk("a.md", 0, "alpha beta"), chunk("a.md", 1, "gamma")],
                       "b.md": [chunk("b.md", 0, "delta")]})
    assert store.count() == 3 and store.count("docs") == 3 and store.count("reference") == 0
    assert store.indexed("docs") == {"a.md": "h-a.md", "b.md": "h-b.md"}
    got = store.chunks("docs")
    assert [c.id for c in got] == sorted(c.id for c in got)
    assert got[0].heading == ("Doc", "part 0") and got[0].text == "alpha beta"


def test_put_replaces_a_source(store):
    store.put("docs", {"a.md": [chunk("a.md", 0, "old one"), chunk("a.md", 1, "old two")]})
    store.put("docs", {"a.md": [chunk("a.md", 0, "new")]})
    assert [c.text for c in store.chunks("docs")] == ["new"]


def test_remove(store):
    store.put("docs", {"a.md": [chunk("a.md", 0, "x")], "b.md": [chunk("b.md", 0, "y"), chunk("b.md", 1, "z")]})
    assert store.remove("docs", ["b.md"]) == 2
    assert store.indexed("docs") == {"a.md": "h-a.md"}
    assert store.remove("docs", ["missing.md"]) == 0


def test_layers_are_separate(store):
    store.put("reference", {"k.py": [chunk("k.py", 0, "kernel", layer="reference")]})
    store.put("docs", {"d.md": [chunk("d.md", 0, "doc")]})
    hits = store.search("kernel", Scope(layers=("docs",)))
    assert {h.chunk.layer for h in hits} == {"docs"}
    with pytest.raises(ValueError):
        store.put("docs", {"k.py": [chunk("k.py", 0, "wrong layer", layer="reference")]})


def test_nearest_orders_by_similarity(store):
    store.put("docs", {"a.md": [chunk("a.md", 0, "shared memory bank conflicts padding")],
                       "b.md": [chunk("b.md", 0, "cuda graphs launch overhead replay")]})
    vec = store.embedder.embed(["launch overhead of cuda graphs"])[0]
    got = store.nearest("docs", vec, Scope(), 2)
    assert got[0][0] == "docs:b.md:0" and got[0][1] > got[1][1]


def test_scope_filters_are_hard(store):
    store.put("docs", {
        "hopper.md": [chunk("hopper.md", 0, "tma bulk copy trick", vendors=("nvidia",), archs=("sm90",))],
        "amd.md": [chunk("amd.md", 0, "lds padding trick", vendors=("amd",), archs=("gfx942",))],
        "any.md": [chunk("any.md", 0, "coalescing trick")],
    })
    amd = {h.chunk.source for h in store.search("tma bulk copy trick", Scope(vendor="amd"), k=10)}
    assert amd == {"amd.md", "any.md"}
    sm90 = {h.chunk.source for h in store.search("trick", Scope(arch="sm90"), k=10)}
    assert sm90 == {"hopper.md", "any.md"}
    every = {h.chunk.source for h in store.search("trick", Scope(arch="any"), k=10)}
    assert every == {"hopper.md", "amd.md", "any.md"}


def test_op_and_dsl_filters(store):
    store.put("reference", {
        "softmax.py": [chunk("softmax.py", 0, "softmax kernel", layer="reference", ops=("softmax",), dsl=("triton",))],
        "norm.py": [chunk("norm.py", 0, "rmsnorm kernel", layer="reference", ops=("rmsnorm",), dsl=("cuda",))],
    })
    assert [h.chunk.source for h in store.search("kernel", Scope(op="rmsnorm"))] == ["norm.py"]
    assert [h.chunk.source for h in store.search("kernel", Scope(dsl="TRITON"))] == ["softmax.py"]


def test_hits_carry_source_layer_heading_score(store):
    store.put("docs", {"a.md": [chunk("a.md", 0, "the metric lts__t_sector_hit_rate is the L2 hit rate")]})
    hit = store.search("lts__t_sector_hit_rate")[0]
    d = hit.to_dict()
    assert (d["source"], d["layer"], d["heading"]) == ("a.md", "docs", ["Doc", "part 0"])
    assert d["score"] > 0 and d["bm25"] > 0


def test_exact_identifier_beats_loose_matches(store):
    filler = {f"f{i}.md": [chunk(f"f{i}.md", 0, f"l2 cache sector hit rate discussion number {i}")] for i in range(8)}
    store.put("docs", {**filler, "m.md": [chunk("m.md", 0, "read lts__t_sector_hit_rate.pct in ncu")]})
    assert store.search("lts__t_sector_hit_rate", k=1)[0].chunk.source == "m.md"


def test_ingest_into_every_backend(store, docs_tree):
    report = ingest(store, [docs_tree / "knowledge"], root=docs_tree)
    assert len(report.added) == 4 and not report.skipped
    again = ingest(store, [docs_tree / "knowledge"], root=docs_tree)
    assert not again.changed and again.unchanged == 4 and again.chunks_added == 0
    hits = store.search("mbarrier asynchronous bulk copies", Scope(vendor="amd"), k=10)
    assert "knowledge/hopper.md" not in {h.chunk.source for h in hits}
