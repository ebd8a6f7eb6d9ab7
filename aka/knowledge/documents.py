"""Turn one file into chunks: read it safely, parse its metadata, chunk it by kind."""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace
from pathlib import Path

from aka.knowledge.chunking import Piece, chunk_markdown, chunk_python, chunk_text
from aka.knowledge.html import html_to_markdown
from aka.knowledge.frontmatter import DocMeta, doc_meta, kernel_doc_meta, split_front_matter
from aka.spec.knowledge import Chunk
from aka.spec.kernel import read_kernel_meta

SUFFIXES = {
    ".md": "markdown", ".markdown": "markdown", ".py": "python", ".txt": "text", ".rst": "text",
    ".cu": "text", ".cuh": "text", ".c": "text", ".cc": "text", ".cpp": "text", ".h": "text",
    ".hpp": "text", ".hip": "text", ".html": "html", ".htm": "html",
}
MAX_BYTES = 2_000_000
"""Files larger than this are skipped (and reported); override with `max_bytes`."""

_H1 = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)


class Skip(Exception):
    """A file cannot be indexed; the message says why (and `line` where, if known)."""

    def __init__(self, reason: str, line: int | None = None):
        super().__init__(reason)
        self.reason, self.line = reason, line


def kind_of(path: Path) -> str | None:
    """'markdown', 'html', 'python', 'text', or None for a file type ingestion ignores."""
    return SUFFIXES.get(path.suffix.lower())


def read_file(path: Path, max_bytes: int = MAX_BYTES) -> tuple[str, str]:
    """(text, sha256 of the bytes); Skip for unreadable, enormous or binary files."""
    try:
        size = path.stat().st_size
        if size > max_bytes:
            raise Skip(f"{size:,} bytes is over the {max_bytes:,}-byte cap (raise it with --max-bytes)")
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise Skip(f"unreadable: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise Skip(f"over the {max_bytes:,}-byte cap (raise it with --max-bytes)")
    if b"\x00" in data[:8192]:
        raise Skip("binary file (NUL bytes)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Skip(f"not UTF-8 text (byte {exc.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n"), hashlib.sha256(data).hexdigest()


def document_chunks(path: Path, text: str, *, layer: str, source: str, file_hash: str) -> list[Chunk]:
    """Chunks of one file; SpecError (file, line, field) when its metadata is broken."""
    kind = kind_of(path) or "text"
    if kind == "markdown":
        data, body, body_line, key_lines = split_front_matter(text, str(path))
        meta = doc_meta(data, str(path), strict=layer != "upstream", key_lines=key_lines)
        if not meta.title:
            h1 = _H1.search(body)
            meta = replace(meta, title=h1.group(1).strip() if h1 else path.stem)
        pieces = chunk_markdown(body, meta.title, body_line)
    elif kind == "html":
        title, body = html_to_markdown(text)
        meta = DocMeta(title=title or path.stem)
        pieces = chunk_markdown(body, meta.title, 1)
    elif kind == "python":
        meta = kernel_doc_meta(read_kernel_meta(path)) if layer == "reference" else DocMeta()
        meta = meta if meta.title else replace(meta, title=path.name)
        pieces = chunk_python(text)
    else:
        meta = DocMeta(title=path.name)
        pieces = chunk_text(text)
    prefix = hashlib.sha1(f"{layer}\0{source}".encode()).hexdigest()[:16]
    return [_chunk(p, i, kind, meta, layer=layer, source=source, file_hash=file_hash, prefix=prefix)
            for i, p in enumerate(pieces)]


def _chunk(piece: Piece, index: int, kind: str, meta: DocMeta, *, layer: str, source: str,
           file_hash: str, prefix: str) -> Chunk:
    if kind == "python":
        context = f"{meta.title} :: {'.'.join(piece.heading)}" if piece.heading else meta.title
    else:
        context = " > ".join(piece.heading) or meta.title
    return Chunk(
        id=f"{layer}:{prefix}:{index:05d}", layer=layer, source=source,
        text=f"{context}\n{piece.body}", heading=piece.heading, title=meta.title, kind=kind,
        line=piece.line, file_hash=file_hash, ops=meta.ops, vendors=meta.vendors, archs=meta.archs,
        dsl=meta.dsl, techniques=meta.techniques, category=meta.category, strategy=meta.strategy,
        params=meta.params, sources=meta.sources)
