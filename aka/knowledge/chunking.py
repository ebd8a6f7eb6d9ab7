"""Chunkers: Markdown by heading, Python by function/class/kernel, plain text by paragraph."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

MAX_CHARS = 1500
"""Longer pieces are split at paragraph (then line) boundaries; each part keeps its heading path."""

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass(frozen=True)
class Piece:
    """A chunk before metadata is attached: heading path, body, first line."""

    heading: tuple[str, ...]
    body: str
    line: int


def chunk_markdown(body: str, title: str, first_line: int = 1) -> list[Piece]:
    """Split at ATX headings outside code fences; the heading path starts at the title."""
    pieces: list[Piece] = []
    stack: list[tuple[int, str]] = []
    buf: list[str] = []
    start, in_fence = first_line, False

    def flush() -> None:
        heading = _path(title, stack)
        pieces.extend(_split(heading, "\n".join(buf), start))

    for offset, line in enumerate(body.split("\n")):
        if _FENCE.match(line):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        if m:
            flush()
            level = len(m.group(1))
            stack = [(lv, h) for lv, h in stack if lv < level] + [(level, m.group(2).strip())]
            buf, start = [], first_line + offset + 1
            continue
        buf.append(line)
    flush()
    return pieces


def _path(title: str, stack: list[tuple[int, str]]) -> tuple[str, ...]:
    heads = [h for _, h in stack]
    if heads and title and heads[0] == title:
        return tuple(heads)
    return tuple(([title] if title else []) + heads)


def chunk_python(source: str) -> list[Piece]:
    """Module docstring, then each top-level function or class with its decorators and docstring.

    A class longer than MAX_CHARS is split into its header and one piece per method.
    Source that does not parse falls back to paragraph chunking.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return chunk_text(source)
    lines = source.split("\n")
    pieces: list[Piece] = []
    doc = ast.get_docstring(tree, clean=True)
    if doc:
        pieces.extend(_split(("<module>",), doc, 1))
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pieces.extend(_node_pieces(node, lines, ()))
    return pieces


def _node_pieces(node: ast.AST, lines: list[str], parent: tuple[str, ...]) -> list[Piece]:
    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
    text = "\n".join(lines[first - 1:node.end_lineno])
    name = parent + (node.name,)
    methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))] \
        if isinstance(node, ast.ClassDef) else []
    if len(text) <= MAX_CHARS or not methods:
        return _split(name, text, first)
    header_end = methods[0].decorator_list[0].lineno - 1 if methods[0].decorator_list else methods[0].lineno - 1
    out = _split(name, "\n".join(lines[first - 1:header_end]), first)
    for method in methods:
        out.extend(_node_pieces(method, lines, name))
    return out


def chunk_text(text: str) -> list[Piece]:
    """Paragraphs (blank-line separated), packed into pieces of at most MAX_CHARS."""
    return _split((), text, 1)


def _split(heading: tuple[str, ...], text: str, line: int) -> list[Piece]:
    """Pack blank-line-separated paragraphs into pieces of at most MAX_CHARS characters."""
    out: list[Piece] = []
    buf: list[str] = []
    buf_line = line
    size = 0
    for para_line, para in _paragraphs(text, line):
        for part_line, part in _hard_wrap(para, para_line):
            if buf and size + len(part) + 2 > MAX_CHARS:
                out.append(Piece(heading, "\n\n".join(buf), buf_line))
                buf, size = [], 0
            if not buf:
                buf_line = part_line
            buf.append(part)
            size += len(part) + 2
    if buf:
        out.append(Piece(heading, "\n\n".join(buf), buf_line))
    return out


def _paragraphs(text: str, line: int) -> list[tuple[int, str]]:
    paras, buf, start = [], [], line
    for i, raw in enumerate(text.split("\n")):
        if raw.strip():
            if not buf:
                start = line + i
            buf.append(raw.rstrip())
        elif buf:
            paras.append((start, "\n".join(buf)))
            buf = []
    if buf:
        paras.append((start, "\n".join(buf)))
    return paras


def _hard_wrap(para: str, line: int) -> list[tuple[int, str]]:
    """Cut a paragraph longer than MAX_CHARS at line boundaries (or mid-line if one line is huge)."""
    if len(para) <= MAX_CHARS:
        return [(line, para)]
    out, buf, start = [], "", line
    for i, row in enumerate(para.split("\n")):
        while len(row) > MAX_CHARS:
            if buf:
                out.append((start, buf))
                buf = ""
            out.append((line + i, row[:MAX_CHARS]))
            row = row[MAX_CHARS:]
        if buf and len(buf) + len(row) + 1 > MAX_CHARS:
            out.append((start, buf))
            buf = ""
        if not buf:
            start = line + i
        buf = f"{buf}\n{row}" if buf else row
    if buf:
        out.append((start, buf))
    return out
