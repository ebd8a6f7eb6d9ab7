"""The two seams of the knowledge part: an `Embedder` and a `KnowledgeBase` store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Protocol, runtime_checkable

from aka.spec.knowledge import Chunk, Hit, Scope


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors.

    Attributes:
        name: identifies the model; an index records it and refuses another one.
        dim: length of every vector.
    """

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalized vector per text, in order; deterministic for a given model."""
        ...


@runtime_checkable
class KnowledgeBase(Protocol):
    """A store of chunks in three layers (`reference`, `docs`, `upstream`) with scoped retrieval.

    Every backend (in-memory, Chroma) passes the same contract tests in tests/knowledge.
    Writes are keyed by source: `put` replaces all chunks of each source it names, so a
    re-ingested file never leaves stale chunks behind.

    Attributes:
        embedder: the embedder used for both documents and queries.
    """

    embedder: Embedder

    def put(self, layer: str, docs: Mapping[str, Sequence[Chunk]]) -> None:
        """Replace the chunks of each source in `docs` (source -> its complete chunk list)."""
        ...

    def remove(self, layer: str, sources: Sequence[str]) -> int:
        """Delete every chunk of these sources; returns how many chunks went."""
        ...

    def indexed(self, layer: str) -> dict[str, str]:
        """Sources held in a layer -> the content hash they were indexed at."""
        ...

    def chunks(self, layer: str) -> list[Chunk]:
        """Every chunk of a layer, in a stable order (by id)."""
        ...

    def nearest(self, layer: str, vector: Sequence[float], scope: Scope, n: int) -> list[tuple[str, float]]:
        """Up to n (chunk id, cosine similarity) pairs in scope, most similar first."""
        ...

    def search(self, query: str, scope: Scope = Scope(), k: int = 5) -> list[Hit]:
        """Hybrid retrieval: scope filters, then dense and BM25 rankings fused by reciprocal rank."""
        ...

    def count(self, layer: str | None = None) -> int:
        """Number of chunks in a layer, or in all layers."""
        ...

    def write_lock(self) -> AbstractContextManager:
        """Context manager held around a batch of writes (a file lock for persistent stores)."""
        ...

    def record_roots(self, layer: str, roots: Sequence[str]) -> None:
        """Remember the paths ingested into a layer, so that `rebuild` can ingest them again."""
        ...
