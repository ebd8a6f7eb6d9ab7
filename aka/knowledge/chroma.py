"""Chroma persistent store: one collection per layer, our own embeddings, telemetry off."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

from aka.errors import EnvironmentMissing, KnowledgeError
from aka.knowledge.base import Embedder
from aka.knowledge.embed import DEFAULT_EMBEDDER, make_embedder
from aka.knowledge.paths import default_kb_dir
from aka.spec.knowledge import LAYERS, Chunk, Scope
from aka.knowledge.retrieve import HybridSearch

FORMAT = 1
"""Index layout version; an index with another one must be rebuilt."""
MANIFEST = "aka-kb.json"
MANIFEST_TMP = f".{MANIFEST}.tmp"
"""The manifest's next version, written under the write lock and renamed over the manifest."""
LOCK = "write.lock"
EMBED_BATCH = 256
REBUILD = "run `aka kb rebuild` to rebuild it"


class ChromaKnowledgeBase(HybridSearch):
    """Persistent store in a folder (default `.aka/kb/` at the repository root).

    The folder holds Chroma's files, `aka-kb.json` (format, embedder, generation, ingested roots)
    and `write.lock`. Opening a folder that does not exist creates nothing until the first write.
    Every write holds the lock and starts from the manifest on disk, so processes that open the
    same new folder at once create it once and keep each other's roots.
    """

    def __init__(self, path: str | Path | None = None, embedder: Embedder | None = None,
                 *, lock_timeout: float = 300.0):
        self.path = default_kb_dir(path)
        self.lock_timeout = lock_timeout
        found = read_manifest(self.path)
        if found and embedder is not None and embedder.name != found["embedder"]:
            raise KnowledgeError(f"{self.path}: the index was built with embedder {found['embedder']!r}, "
                                 f"not {embedder.name!r}; open it without choosing one, or {REBUILD} "
                                 f"with --embedder {embedder.name}")
        self._chosen = embedder is not None
        self.embedder = embedder or make_embedder(found["embedder"] if found else DEFAULT_EMBEDDER)
        self._manifest = found or {"format": FORMAT, "embedder": self.embedder.name,
                                   "dim": self.embedder.dim, "generation": 0, "roots": {}}
        self._client = None
        self._lock = None

    def _adopt(self, found: dict[str, Any]) -> None:
        """Take the manifest another process wrote since this store was opened."""
        if found["embedder"] != self.embedder.name:
            if self._chosen:
                raise KnowledgeError(f"{self.path}: another process created the index with embedder "
                                     f"{found['embedder']!r}, not {self.embedder.name!r}; open it without "
                                     f"choosing one, or {REBUILD} with --embedder {self.embedder.name}")
            self.embedder = make_embedder(found["embedder"])
        self._manifest = found

    # -- plumbing -------------------------------------------------------------------------
    def _exists(self) -> bool:
        return (self.path / MANIFEST).is_file()

    def _collection(self, layer: str):
        if layer not in LAYERS:
            raise ValueError(f"unknown layer {layer!r} (known: {', '.join(LAYERS)})")
        if self._client is None:
            found = read_manifest(self.path)
            if found:
                self._adopt(found)  # another process may have created the folder since we opened it
            self._client = _open_client(self.path)
        return self._client.get_or_create_collection(
            f"aka-{layer}", embedding_function=None, configuration={"hnsw": {"space": "cosine"}})

    def _bump(self) -> None:
        self._manifest["generation"] = self.generation() + 1
        _write_manifest(self.path, self._manifest)

    def generation(self) -> int:
        try:
            return int(json.loads((self.path / MANIFEST).read_text())["generation"])
        except (OSError, ValueError, KeyError, TypeError):
            return 0

    def write_lock(self) -> AbstractContextManager:
        return self._locked()

    @contextmanager
    def _locked(self) -> Iterator[None]:
        if self._lock is None:
            from filelock import FileLock

            self.path.mkdir(parents=True, exist_ok=True)
            self._lock = FileLock(str(self.path / LOCK), timeout=self.lock_timeout)
        with self._lock:
            if self._lock.lock_counter == 1:  # outermost: other writers may have changed the manifest
                found = read_manifest(self.path)
                if found:
                    self._adopt(found)
            yield

    # -- the KnowledgeBase contract --------------------------------------------------------
    def put(self, layer: str, docs: Mapping[str, Sequence[Chunk]]) -> None:
        items = [c for chunks in docs.values() for c in chunks]
        bad = next((c for c in items if c.layer != layer), None)
        if bad:
            raise ValueError(f"chunk {bad.id} is in layer {bad.layer!r}, not {layer!r}")
        with self.write_lock():
            if not self._exists():
                _write_manifest(self.path, self._manifest)
            col = self._collection(layer)
            col.delete(where={"source": {"$in": list(docs)}}) if docs else None
            step = min(EMBED_BATCH, self._client.get_max_batch_size())
            for i in range(0, len(items), step):
                batch = items[i:i + step]
                col.add(ids=[c.id for c in batch], documents=[c.text for c in batch],
                        metadatas=[c.to_metadata() for c in batch],
                        embeddings=self.embedder.embed([c.text for c in batch]))
            self._bump()

    def remove(self, layer: str, sources: Sequence[str]) -> int:
        if not sources or not self._exists():
            return 0
        with self.write_lock():
            col = self._collection(layer)
            ids = col.get(where={"source": {"$in": list(sources)}}, include=[])["ids"]
            if ids:
                col.delete(ids=ids)
            self._bump()
            return len(ids)

    def indexed(self, layer: str) -> dict[str, str]:
        return {c.source: c.file_hash for c in self.view(layer).chunks}

    def chunks(self, layer: str) -> list[Chunk]:
        if not self._exists():
            return []
        got = self._collection(layer).get(include=["documents", "metadatas"])
        out = [Chunk.from_metadata(doc, meta) for doc, meta in zip(got["documents"], got["metadatas"])]
        return sorted(out, key=lambda c: c.id)

    def nearest(self, layer: str, vector: Sequence[float], scope: Scope, n: int) -> list[tuple[str, float]]:
        if n <= 0 or not self._exists():
            return []
        col = self._collection(layer)
        got = col.query(query_embeddings=[list(vector)], n_results=n, where=scope.to_where(), include=["distances"])
        return [(cid, 1.0 - float(d)) for cid, d in zip(got["ids"][0], got["distances"][0])]

    def count(self, layer: str | None = None) -> int:
        if not self._exists():
            return 0
        return sum(self._collection(name).count() for name in ([layer] if layer else LAYERS))

    def record_roots(self, layer: str, roots: Sequence[str]) -> None:
        with self.write_lock():
            known = self._manifest.setdefault("roots", {}).setdefault(layer, [])
            known.extend(r for r in roots if r not in known)
            self._manifest["generation"] = self.generation()
            _write_manifest(self.path, self._manifest)

    @property
    def roots(self) -> dict[str, list[str]]:
        return dict(self._manifest.get("roots", {}))


def _open_client(path: Path):
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError as exc:
        raise EnvironmentMissing(f"chromadb is not installed ({exc}); pip install chromadb") from None
    try:
        return chromadb.PersistentClient(path=str(path), settings=Settings(anonymized_telemetry=False, allow_reset=False))
    except Exception as exc:  # Chroma raises many types for a store it cannot read
        raise KnowledgeError(f"{path}: Chroma cannot open this index ({type(exc).__name__}: {exc}); {REBUILD}") from None


def read_manifest(path: Path) -> dict[str, Any] | None:
    """The manifest of an index folder; None for a fresh folder; KnowledgeError if incompatible."""
    if path.exists() and not path.is_dir():
        raise KnowledgeError(f"{path}: is a file, not a knowledge-base folder")
    file = path / MANIFEST
    if not file.is_file():
        leftovers = sorted(_foreign(path)) if path.is_dir() else []
        if MANIFEST not in leftovers:  # else another process created it since is_file()
            if leftovers:
                raise KnowledgeError(f"{path}: holds files ({', '.join(leftovers[:3])}) but no {MANIFEST}; "
                                     f"it is not an index of this aka version; {REBUILD}")
            return None
    try:
        data = json.loads(file.read_text())
        fmt = data.get("format")
    except (OSError, ValueError, AttributeError) as exc:
        raise KnowledgeError(f"{file}: unreadable index manifest ({exc}); {REBUILD}") from None
    if fmt != FORMAT:
        raise KnowledgeError(f"{path}: index format {fmt!r}, this aka reads format {FORMAT}; {REBUILD}")
    if not isinstance(data.get("embedder"), str) or not isinstance(data.get("roots", {}), dict):
        raise KnowledgeError(f"{file}: manifest lacks 'embedder' or 'roots'; {REBUILD}")
    return data


def _foreign(path: Path) -> set[str]:
    """Names in an index folder other than the lock and a manifest being written."""
    return {p.name for p in path.iterdir()} - {LOCK, MANIFEST_TMP}


def _write_manifest(path: Path, data: dict[str, Any]) -> None:
    """Replace the manifest atomically; callers hold the write lock, so one writer uses the tmp."""
    path.mkdir(parents=True, exist_ok=True)
    tmp = path / MANIFEST_TMP
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True))
    os.replace(tmp, path / MANIFEST)


def wipe(path: str | Path | None = None, *, lock_timeout: float = 300.0) -> dict[str, list[str]]:
    """Empty an index folder under its lock; returns the roots it had recorded (may be empty).

    Refuses a folder that does not look like an index, so a wrong --kb-dir never deletes a project.
    """
    folder = default_kb_dir(path)
    if not folder.exists():
        return {}
    names = _foreign(folder)
    if names and not names & {MANIFEST, "chroma.sqlite3"}:
        raise KnowledgeError(f"{folder}: does not look like a knowledge-base folder; refusing to delete it")
    try:
        roots = json.loads((folder / MANIFEST).read_text()).get("roots", {})
    except (OSError, ValueError, AttributeError):
        roots = {}
    if "chromadb" in sys.modules:
        from chromadb.api.client import SharedSystemClient

        SharedSystemClient.clear_system_cache()
    from filelock import FileLock

    with FileLock(str(folder / LOCK), timeout=lock_timeout):
        for child in folder.iterdir():
            if child.name == LOCK:
                continue
            shutil.rmtree(child) if child.is_dir() and not child.is_symlink() else child.unlink()
    return roots if isinstance(roots, dict) else {}
