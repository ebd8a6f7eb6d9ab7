"""Hybrid retrieval: hard scope filters, then dense and BM25 rankings fused by reciprocal rank."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from aka.spec.knowledge import FILTER_KEYS, LAYERS, Chunk, Hit, Scope

RRF_K = 60
"""Reciprocal-rank-fusion constant: a result ranked r contributes 1 / (RRF_K + r)."""
POOL = 50
"""How many results each ranking contributes before fusion."""

_TOKEN = re.compile(r"[A-Za-z0-9_]+(?:[.:][A-Za-z0-9_]+)*")
_PART = re.compile(r"[A-Za-z0-9]+")
_STOP = frozenset(
    "a an and are as at be by can do does for from how i in into is it its of on or that the this "
    "to was what when where which who why will with you your".split())


def tokenize(text: str) -> list[str]:
    """Lower-case keyword tokens; dotted and snake_case identifiers also yield their parts.

    `lts__t_sector_hit_rate` gives itself plus lts, t, sector, hit, rate, so an exact metric or API
    name matches strongly and its words still match loosely.
    """
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group(0).lower()
        if token not in _STOP:
            out.append(token)
        if "_" in token or "." in token or ":" in token:
            out.extend(p for p in _PART.findall(token) if p != token and p not in _STOP)
    return out


@dataclass
class LayerView:
    """A layer's chunks with a BM25 index over them, built once per index generation."""

    chunks: list[Chunk]
    by_id: dict[str, int] = field(default_factory=dict)
    _bm25: object | None = None

    def __post_init__(self) -> None:
        self.by_id = {c.id: i for i, c in enumerate(self.chunks)}

    def bm25_scores(self, tokens: list[str]) -> list[float]:
        """BM25 (Okapi) score of every chunk for the query tokens."""
        if not self.chunks or not tokens:
            return [0.0] * len(self.chunks)
        if self._bm25 is None:
            self._bm25 = _bm25([tokenize(c.text) or ["<empty>"] for c in self.chunks])
        return [float(s) for s in self._bm25.get_scores(tokens)]


def _bm25(corpus: list[list[str]]):
    """rank_bm25's Okapi BM25 with Lucene's always-positive IDF, log(1 + (N - n + .5) / (n + .5)).

    The classic IDF goes negative for terms in over half the documents, which breaks small corpora.
    """
    import math

    from rank_bm25 import BM25Okapi

    class _LuceneIdf(BM25Okapi):
        def _calc_idf(self, nd):
            self.idf = {w: math.log(1 + (self.corpus_size - n + 0.5) / (n + 0.5)) for w, n in nd.items()}

    return _LuceneIdf(corpus)


class HybridSearch:
    """Mixin giving a store `search` and a cached `view`; the store supplies `chunks`, `nearest`
    and `generation` (a number that changes whenever its contents change)."""

    def view(self, layer: str) -> LayerView:
        """The cached LayerView of a layer, rebuilt when the store's generation moved."""
        cache = self.__dict__.setdefault("_views", {})
        gen = self.generation()
        hit = cache.get(layer)
        if hit is None or hit[0] != gen:
            hit = cache[layer] = (gen, LayerView(self.chunks(layer)))
        return hit[1]

    def tag_values(self, layers: Sequence[str] = LAYERS) -> dict[str, set[str]]:
        """Every value each filter key ('op', 'vendor', 'arch', 'dsl') has in the tags of `layers`."""
        out: dict[str, set[str]] = {key: set() for key in FILTER_KEYS}
        for layer in layers:
            for c in self.view(layer).chunks:
                for key in FILTER_KEYS:
                    out[key].update(t.lower() for t in c.tags(key))
        return out

    def search(self, query: str, scope: Scope = Scope(), k: int = 5) -> list[Hit]:
        """Top k chunks in scope for the query, by fused dense and keyword rank."""
        if k <= 0 or not query.strip():
            return []
        vector = self.embedder.embed([query])[0]
        tokens = tokenize(query)
        dense: list[tuple[float, Chunk]] = []
        lexical: list[tuple[float, Chunk]] = []
        for layer in scope.layers:
            view = self.view(layer)
            allowed = [i for i, c in enumerate(view.chunks) if scope.matches(c)]
            if not allowed:
                continue
            for cid, sim in self.nearest(layer, vector, scope, min(POOL, len(allowed))):
                i = view.by_id.get(cid)
                if i is not None and scope.matches(view.chunks[i]):
                    dense.append((sim, view.chunks[i]))
            scores = view.bm25_scores(tokens)
            lexical.extend((scores[i], view.chunks[i]) for i in allowed if scores[i] > 0)
        return fuse(_top(dense), _top(lexical), k)


def _top(scored: list[tuple[float, Chunk]]) -> list[tuple[float, Chunk]]:
    return sorted(scored, key=lambda sc: (-sc[0], sc[1].id))[:POOL]


def fuse(dense: Sequence[tuple[float, Chunk]], lexical: Sequence[tuple[float, Chunk]], k: int) -> list[Hit]:
    """Reciprocal-rank fusion of two best-first rankings into k hits."""
    score: dict[str, float] = {}
    chunk: dict[str, Chunk] = {}
    sims: dict[str, float] = {}
    bm25: dict[str, float] = {}
    for ranking, store in ((dense, sims), (lexical, bm25)):
        for rank, (value, c) in enumerate(ranking, start=1):
            score[c.id] = score.get(c.id, 0.0) + 1.0 / (RRF_K + rank)
            chunk[c.id] = c
            store[c.id] = value
    order = sorted(score, key=lambda cid: (-score[cid], cid))[:k]
    return [Hit(chunk[cid], score[cid], sims.get(cid), bm25.get(cid)) for cid in order]


BOTTLENECK_HINTS = {
    "memory-bound": "DRAM bandwidth, coalesced vectorized loads, bytes moved, L2 hit rate, fusion",
    "compute-bound": "tensor cores, tile sizes, pipelining, instruction throughput",
    "latency-bound": "occupancy, warp stalls, long scoreboard, more parallelism per SM",
    "launch-bound": "kernel launch overhead, CUDA graphs, fewer kernels, persistent kernels",
}


def build_query(op: str, profile_summary: str = "", *, bottleneck: str | None = None,
                vendor: str | None = None, arch: str | None = None, dsl: str | None = None,
                layers: Sequence[str] | None = None, max_chars: int = 1200) -> tuple[str, Scope]:
    """Query text and scope for an operator and its profile summary (`ProfileReport.summary`)."""
    parts = [f"{op} kernel optimization"]
    if bottleneck and bottleneck in BOTTLENECK_HINTS:
        parts.append(f"{bottleneck}: {BOTTLENECK_HINTS[bottleneck]}")
    if profile_summary.strip():
        parts.append(" ".join(profile_summary.split()))
    text = ". ".join(parts)[:max_chars]
    scope = Scope(op=op, vendor=vendor, arch=arch, dsl=dsl) if layers is None else \
        Scope(layers=tuple(layers), op=op, vendor=vendor, arch=arch, dsl=dsl)
    return text, scope
