"""In-memory knowledge base: the fake every test can use; same contract as the Chroma store."""

from __future__ import annotations

import math
import threading
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager

from aka.knowledge.base import Embedder
from aka.knowledge.embed import HashEmbedder
from aka.spec.knowledge import LAYERS, Chunk, Scope
from aka.knowledge.retrieve import HybridSearch


class InMemoryKnowledgeBase(HybridSearch):
    """Chunks and their vectors in dictionaries; nothing persists."""

    def __init__(self, embedder: Embedder | None = None):
        self.embedder = embedder or HashEmbedder()
        self._layers: dict[str, dict[str, tuple[Chunk, list[float]]]] = {name: {} for name in LAYERS}
        self._lock = threading.RLock()
        self._generation = 0
        self.roots: dict[str, list[str]] = {}

    def generation(self) -> int:
        return self._generation

    def put(self, layer: str, docs: Mapping[str, Sequence[Chunk]]) -> None:
        store = self._layer(layer)
        self.remove(layer, list(docs))
        items = [c for chunks in docs.values() for c in chunks]
        vectors = self.embedder.embed([c.text for c in items])
        for c, v in zip(items, vectors):
            if c.layer != layer:
                raise ValueError(f"chunk {c.id} is in layer {c.layer!r}, not {layer!r}")
            store[c.id] = (c, v)
        self._generation += 1

    def remove(self, layer: str, sources: Sequence[str]) -> int:
        store = self._layer(layer)
        wanted = set(sources)
        gone = [cid for cid, (c, _) in store.items() if c.source in wanted]
        for cid in gone:
            del store[cid]
        self._generation += 1
        return len(gone)

    def indexed(self, layer: str) -> dict[str, str]:
        return {c.source: c.file_hash for c, _ in self._layer(layer).values()}

    def chunks(self, layer: str) -> list[Chunk]:
        store = self._layer(layer)
        return [store[cid][0] for cid in sorted(store)]

    def nearest(self, layer: str, vector: Sequence[float], scope: Scope, n: int) -> list[tuple[str, float]]:
        norm = math.sqrt(sum(x * x for x in vector)) or 1.0
        scored = [(sum(a * b for a, b in zip(vector, v)) / norm, c.id)
                  for c, v in self._layer(layer).values() if scope.matches(c)]
        scored.sort(key=lambda sc: (-sc[0], sc[1]))
        return [(cid, sim) for sim, cid in scored[:n]]

    def count(self, layer: str | None = None) -> int:
        return sum(len(self._layer(name)) for name in ([layer] if layer else LAYERS))

    def write_lock(self) -> AbstractContextManager:
        return self._lock

    def record_roots(self, layer: str, roots: Sequence[str]) -> None:
        known = self.roots.setdefault(layer, [])
        known.extend(r for r in roots if r not in known)

    def _layer(self, layer: str) -> dict[str, tuple[Chunk, list[float]]]:
        try:
            return self._layers[layer]
        except KeyError:
            raise ValueError(f"unknown layer {layer!r} (known: {', '.join(LAYERS)})") from None
