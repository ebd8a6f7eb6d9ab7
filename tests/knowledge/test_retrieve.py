"""Retrieval pieces: tokenizer, reciprocal-rank fusion, query builder, scope semantics."""

from __future__ import annotations

import pytest

from aka.knowledge import Chunk, Scope, build_query
from aka.knowledge.retrieve import RRF_K, fuse, tokenize


def c(cid: str, **tags) -> Chunk:
    return Chunk(id=cid, layer="docs", source=f"{cid}.md", text=cid, **tags)


def test_tokenize_keeps_identifiers_and_their_parts():
    toks = tokenize("Read lts__t_sector_hit_rate.pct and call tl.dot(a, b)")
    assert "lts__t_sector_hit_rate.pct" in toks and "sector" in toks and "hit" in toks
    assert "tl.dot" in toks and "dot" in toks and "and" not in toks


def test_fuse_rewards_agreement():
    a, b, x = c("a"), c("b"), c("x")
    hits = fuse([(0.9, a), (0.8, x)], [(5.0, b), (4.0, x)], k=3)
    assert hits[0].chunk.id == "x"
    assert hits[0].score == pytest.approx(2 / (RRF_K + 2))
    assert hits[0].similarity == 0.8 and hits[0].bm25 == 4.0
    assert {h.chunk.id for h in hits[1:]} == {"a", "b"}


def test_scope_semantics_and_where():
    hopper = c("h", vendors=("nvidia",), archs=("sm90",))
    anyarch = c("g", archs=("any",))
    assert not Scope(vendor="AMD").matches(hopper) and Scope(vendor="amd").matches(anyarch)
    assert Scope(arch="any").matches(hopper) and Scope().to_where() is None
    assert Scope(vendor="amd").to_where() == {"$or": [{"vendor:amd": True}, {"vendor:any": True}]}
    assert len(Scope(vendor="amd", dsl="hip").to_where()["$and"]) == 2
    with pytest.raises(ValueError):
        Scope(layers=("nope",))


def test_metadata_round_trip():
    chunk = Chunk(id="docs:x:0", layer="docs", source="x.md", text="t", heading=("A", "B"), ops=("rmsnorm",),
                  params={"BLOCK": {"values": [1, 2], "default": 1}})
    meta = chunk.to_metadata()
    assert meta["op:rmsnorm"] and meta["vendor:any"] and meta["source"] == "x.md"
    assert Chunk.from_metadata("t", meta) == chunk


def test_build_query_from_profile_summary():
    text, scope = build_query("rmsnorm", "dram_throughput_pct 41 < 60; long scoreboard stalls 70%",
                              bottleneck="latency-bound", vendor="nvidia", arch="sm90", dsl="triton")
    assert text.startswith("rmsnorm kernel optimization") and "long scoreboard" in text and "occupancy" in text
    assert (scope.op, scope.vendor, scope.arch, scope.dsl) == ("rmsnorm", "nvidia", "sm90", "triton")


def test_build_query_surfaces_the_bottleneck_doc():
    from aka.knowledge import InMemoryKnowledgeBase, ingest

    from .conftest import REPO

    kb = InMemoryKnowledgeBase()
    ingest(kb, [REPO / "knowledge"], root=REPO)
    text, scope = build_query("softmax", "warp stalls: stall_long_scoreboard 62%, barrier 20%; "
                              "dram_throughput_pct 35", bottleneck="latency-bound", vendor="nvidia")
    sources = [h.chunk.source for h in kb.search(text, scope, k=5)]
    assert "knowledge/warp-stall-reasons.md" in sources
