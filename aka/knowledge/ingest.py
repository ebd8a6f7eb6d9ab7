"""Ingestion: walk paths, skip what cannot be indexed (saying why), index only what changed."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from aka.errors import InputError, SpecError
from aka.knowledge.base import KnowledgeBase
from aka.knowledge.documents import MAX_BYTES, Skip, document_chunks, kind_of, read_file
from aka.knowledge.paths import repo_root, source_name, source_path
from aka.spec.knowledge import LAYERS, Chunk, IngestReport, Skipped

SKIP_DIRS = {"__pycache__", "node_modules", "venv", "site-packages", "build", "dist"}
"""Folders never walked (besides hidden ones such as .git, .venv and .aka)."""
BATCH_CHUNKS = 256


def default_layer(path: Path) -> str:
    """Files under a `reference_kernels` folder are `reference`; everything else is `docs`."""
    return "reference" if "reference_kernels" in Path(os.path.abspath(path)).parts else "docs"


def walk(folder: Path) -> tuple[list[Path], list[Skipped]]:
    """Supported files under a folder, following symlinks once each; loops are reported, not followed."""
    files: list[Path] = []
    skipped: list[Skipped] = []
    visited: set[Path] = set()
    stack = [folder]
    while stack:
        current = stack.pop()
        try:
            real = current.resolve(strict=True)
        except (OSError, RuntimeError):
            skipped.append(Skipped(str(current), "broken or looping symlink; not followed"))
            continue
        if real in visited:
            if Path(os.path.abspath(current)).is_relative_to(real):
                skipped.append(Skipped(str(current), f"symlink loop back to {real}; not followed"))
            continue
        visited.add(real)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(str(current), f"unreadable folder: {exc.strerror or exc}"))
            continue
        for entry in entries:
            path = Path(entry.path)
            if entry.name.startswith(".") or entry.name in SKIP_DIRS:
                continue
            if _is_dir(entry):
                stack.append(path)
            elif entry.is_symlink() and not path.exists():
                skipped.append(Skipped(str(path), "broken symlink"))
            elif kind_of(path) and not (entry.name == "__init__.py" and default_layer(path) == "reference"):
                files.append(path)
    return sorted(files), skipped


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir(follow_symlinks=True)
    except OSError:
        return False


def plan(paths: Sequence[str | Path], layer: str | None) -> tuple[dict[str, tuple[list[Path], list[Path]]], list[Skipped]]:
    """layer -> (roots, files), each file once (by real path); InputError for a missing path."""
    if layer is not None and layer not in LAYERS:
        raise InputError(f"--layer {layer!r}: expected one of {', '.join(LAYERS)}")
    out: dict[str, tuple[list[Path], list[Path]]] = {}
    skipped: list[Skipped] = []
    seen: set[Path] = set()
    for raw in paths:
        path = Path(os.path.abspath(Path(raw).expanduser()))
        if not path.exists():
            raise InputError(f"{raw}: no such file or folder")
        roots, files = out.setdefault(layer or default_layer(path), ([], []))
        roots.append(path)
        if path.is_dir():
            found, bad = walk(path)
            skipped.extend(bad)
        elif kind_of(path):
            found = [path]
        else:
            skipped.append(Skipped(str(path), f"unsupported file type {path.suffix or '(none)'!r}"))
            found = []
        for f in found:
            real = f.resolve()
            if real not in seen:
                seen.add(real)
                files.append(f)
    return out, skipped


def ingest(kb: KnowledgeBase, paths: Sequence[str | Path], layer: str | None = None, *,
           root: str | Path | None = None, max_bytes: int = MAX_BYTES, progress: bool = False) -> IngestReport:
    """Index files and folders into `kb`, incrementally by content hash, under the write lock."""
    start = time.perf_counter()
    base = Path(root).resolve() if root else repo_root()
    layers, skipped = plan(paths, layer)
    report = IngestReport(skipped=skipped)
    with kb.write_lock():
        for name, (roots, files) in layers.items():
            _ingest_layer(kb, name, roots, files, base, max_bytes, progress, report)
            kb.record_roots(name, [str(r) for r in roots])
    report.seconds = time.perf_counter() - start
    return report


def _ingest_layer(kb: KnowledgeBase, layer: str, roots: list[Path], files: list[Path], base: Path,
                  max_bytes: int, progress: bool, report: IngestReport) -> None:
    indexed = kb.indexed(layer)
    by_hash = {h: s for s, h in indexed.items()}
    seen: set[str] = set()
    hashes: dict[str, str] = {}
    pending: dict[str, list[Chunk]] = {}
    stale: list[str] = []
    for path in _progress(files, progress, f"kb ingest {layer}"):
        source = source_name(path, base)
        seen.add(source)
        try:
            text, digest = read_file(path, max_bytes)
        except Skip as skip:
            report.skipped.append(Skipped(source, skip.reason + _dropped(source, indexed, stale)))
            continue
        if indexed.get(source) == digest:
            report.unchanged += 1
            hashes.setdefault(digest, source)
            continue
        twin = hashes.get(digest) or _live_twin(by_hash.get(digest), source, base)
        if twin:
            report.skipped.append(Skipped(source, f"duplicate of {twin} (same content); indexed once"
                                          + _dropped(source, indexed, stale)))
            continue
        hashes[digest] = source
        try:
            chunks = document_chunks(path, text, layer=layer, source=source, file_hash=digest)
        except SpecError as exc:
            kept = "; its previous version stays indexed" if source in indexed else ""
            report.skipped.append(Skipped(source, f"field '{exc.field}': {exc.message}{kept}", exc.line))
            continue
        (report.updated if source in indexed else report.added).append(source)
        pending[source] = chunks
        report.chunks_added += len(chunks)
        if sum(map(len, pending.values())) >= BATCH_CHUNKS:
            kb.put(layer, pending)
            pending = {}
    if pending:
        kb.put(layer, pending)
    gone = [s for s in indexed if s not in seen and _under(source_path(s, base), roots)]
    report.removed.extend(gone)
    if gone or stale:
        report.chunks_removed += kb.remove(layer, gone + stale)


def _dropped(source: str, indexed: dict[str, str], stale: list[str]) -> str:
    if source not in indexed:
        return ""
    stale.append(source)
    return "; its old chunks were removed"


def _live_twin(other: str | None, source: str, base: Path) -> str | None:
    if other and other != source and source_path(other, base).is_file():
        return other
    return None


def _under(path: Path, roots: list[Path]) -> bool:
    return any(path == r or path.is_relative_to(r) for r in roots)


def _progress(items: list[Path], enabled: bool, desc: str):
    if not enabled or len(items) < 20:
        return items
    from tqdm import tqdm

    return tqdm(items, desc=desc, unit="file", file=sys.stderr, leave=False)
