"""Knowledge records that cross the loop's boundaries: chunks, search scopes, hits and ingestion reports."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

LAYERS = ("reference", "docs", "upstream")
"""The three layers, each its own collection: kernel files, curated docs, external projects."""

FILTER_KEYS = ("op", "vendor", "arch", "dsl")
"""Scope keys; each maps to a tag list on a chunk (`ops`, `vendors`, `archs`, `dsl`)."""

_TAGS = {"op": "ops", "vendor": "vendors", "arch": "archs", "dsl": "dsl"}


@dataclass(frozen=True)
class Chunk:
    """One retrievable piece of a document, with the document's metadata copied onto it.

    An empty tag tuple (or one holding 'any') means the chunk applies to every value of that tag.
    """

    id: str
    """Stable id: layer, a hash of the source path and the chunk's index in the file."""
    layer: str
    """One of LAYERS."""
    source: str
    """File path, relative to the repository root when inside it (POSIX separators)."""
    text: str
    """What is embedded and keyword-indexed: a context line (title, heading path) then the body."""
    heading: tuple[str, ...] = ()
    """Heading path: Markdown headings, or a Python qualified name (class, method)."""
    title: str = ""
    """Document title (front matter, first H1, or the file name)."""
    kind: str = "text"
    """'markdown', 'python' or 'text'."""
    line: int = 1
    """First line of the chunk in its file (1-based)."""
    file_hash: str = ""
    """sha256 of the whole file's bytes; drives incremental ingestion."""
    ops: tuple[str, ...] = ()
    vendors: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()
    dsl: tuple[str, ...] = ()
    techniques: tuple[str, ...] = ()
    category: str = ""
    strategy: str = ""
    """Kernel files: the declared strategy."""
    params: dict[str, Any] = field(default_factory=dict)
    """Kernel files: tunable parameters, name -> {values, default}."""
    sources: tuple[str, ...] = ()
    """Citations from the front matter."""

    def tags(self, key: str) -> tuple[str, ...]:
        """The tag values for a scope key ('op', 'vendor', 'arch', 'dsl')."""
        return getattr(self, _TAGS[key])

    def to_metadata(self) -> dict[str, Any]:
        """Flat metadata for a vector store: lookup keys, one boolean flag per tag, the rest as JSON."""
        meta: dict[str, Any] = {"source": self.source, "file_hash": self.file_hash, "layer": self.layer}
        for key in FILTER_KEYS:
            values = self.tags(key)
            for v in values or ("any",):
                meta[f"{key}:{v}"] = True
        record = asdict(self)
        del record["text"]
        meta["record"] = json.dumps(record, sort_keys=True)
        return meta

    @classmethod
    def from_metadata(cls, text: str, meta: dict[str, Any]) -> Chunk:
        """Inverse of `to_metadata`."""
        record = json.loads(meta["record"])
        for key, value in record.items():
            if isinstance(value, list):
                record[key] = tuple(value)
        return cls(text=text, **record)


@dataclass(frozen=True)
class Scope:
    """Hard filters applied before any ranking.

    A filter value matches a chunk whose tag list holds it, holds 'any', or is empty.
    A filter left None (or set to 'any') does not constrain.
    """

    layers: tuple[str, ...] = LAYERS
    op: str | None = None
    vendor: str | None = None
    arch: str | None = None
    dsl: str | None = None

    def __post_init__(self) -> None:
        bad = [x for x in self.layers if x not in LAYERS]
        if bad:
            raise ValueError(f"unknown layer {bad[0]!r} (known: {', '.join(LAYERS)})")
        for key in FILTER_KEYS:
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, value.strip().lower())

    def active(self) -> dict[str, str]:
        """The filters that constrain: key -> value."""
        out = {}
        for key in FILTER_KEYS:
            value = getattr(self, key)
            if value and value != "any":
                out[key] = value
        return out

    def matches(self, chunk: Chunk) -> bool:
        """Whether a chunk is in scope (layer and every active filter)."""
        if chunk.layer not in self.layers:
            return False
        for key, value in self.active().items():
            tags = chunk.tags(key)
            if tags and value not in tags and "any" not in tags:
                return False
        return True

    def to_where(self) -> dict[str, Any] | None:
        """The same filters (layer aside) as a Chroma `where` clause over `to_metadata` flags."""
        clauses = [{"$or": [{f"{key}:{value}": True}, {f"{key}:any": True}]}
                   for key, value in self.active().items()]
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}


@dataclass(frozen=True)
class Hit:
    """One search result: the chunk and how it ranked."""

    chunk: Chunk
    score: float
    """Reciprocal-rank-fusion score (higher is better)."""
    similarity: float | None = None
    """Cosine similarity of the query and chunk embeddings, when the dense side ranked it."""
    bm25: float | None = None
    """BM25 keyword score, when the keyword side ranked it."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary: source, layer, heading path, scores, text and tags."""
        c = self.chunk
        return {
            "source": c.source, "layer": c.layer, "heading": list(c.heading), "title": c.title,
            "line": c.line, "score": round(self.score, 6),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "bm25": None if self.bm25 is None else round(self.bm25, 4),
            "ops": list(c.ops), "vendors": list(c.vendors), "archs": list(c.archs),
            "dsl": list(c.dsl), "techniques": list(c.techniques), "sources": list(c.sources),
            "params": c.params, "text": c.text,
        }


@dataclass(frozen=True)
class Skipped:
    """A file ingestion did not index, and why."""

    path: str
    reason: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


@dataclass
class IngestReport:
    """What one ingestion run did."""

    added: list[str] = field(default_factory=list)
    """Sources indexed for the first time."""
    updated: list[str] = field(default_factory=list)
    """Sources whose content changed; their old chunks were replaced."""
    removed: list[str] = field(default_factory=list)
    """Sources gone from disk; their chunks were deleted."""
    unchanged: int = 0
    chunks_added: int = 0
    chunks_removed: int = 0
    skipped: list[Skipped] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.updated or self.removed)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["skipped"] = [{"path": s.path, "line": s.line, "reason": s.reason} for s in self.skipped]
        out["seconds"] = round(self.seconds, 3)
        return out
