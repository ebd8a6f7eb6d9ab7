"""Document metadata: YAML front matter of Markdown docs and the header of kernel files."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from aka.errors import SpecError
from aka.spec.kernel import KernelMeta

DOC_FIELDS = ("title", "category", "ops", "techniques", "vendors", "archs", "dsl", "sources")
VENDORS = ("nvidia", "amd", "intel", "any")
_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_LISTS = ("ops", "techniques", "vendors", "archs", "dsl", "sources")


@dataclass(frozen=True)
class DocMeta:
    """The metadata a document lends to each of its chunks (see knowledge/README.md)."""

    title: str = ""
    category: str = ""
    ops: tuple[str, ...] = ()
    techniques: tuple[str, ...] = ()
    vendors: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()
    dsl: tuple[str, ...] = ()
    sources: tuple[str, ...] = ()
    strategy: str = ""
    params: dict[str, Any] = field(default_factory=dict)


def split_front_matter(text: str, path: str) -> tuple[dict[str, Any] | None, str, int, dict[str, int]]:
    """(front matter mapping or None, body, line where the body starts, top-level key -> its line)."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return None, text, 1, {}
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise SpecError(path, "<front matter>", "front matter opened by '---' is never closed", line=1)
    try:
        data = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(path, "<front matter>", f"not valid YAML: {problem}",
                        line=mark.line + 2 if mark else 1) from None
    if not isinstance(data, dict):
        raise SpecError(path, "<front matter>", f"expected a mapping, got {type(data).__name__}", line=2)
    key_lines = {}
    for i in range(1, end):
        m = _KEY.match(lines[i])
        if m:
            key_lines.setdefault(m.group(1), i + 1)
    return data, "\n".join(lines[end + 1:]), end + 2, key_lines


def doc_meta(data: dict[str, Any] | None, path: str, strict: bool = True,
             key_lines: dict[str, int] | None = None) -> DocMeta:
    """Validate front matter; strict (docs layer) rejects unknown keys and bad types, else they are dropped."""
    data = dict(data or {})
    lines = key_lines or {}
    unknown = sorted(set(data) - set(DOC_FIELDS))
    if unknown and strict:
        raise SpecError(path, unknown[0], f"unknown front-matter key (allowed: {', '.join(DOC_FIELDS)})", line=lines.get(unknown[0], 1))
    values: dict[str, Any] = {}
    for key in ("title", "category"):
        value = data.get(key)
        if value is not None and not isinstance(value, (str, int, float)):
            if strict:
                raise SpecError(path, key, f"expected a string, got {value!r}", line=lines.get(key, 1))
            value = None
        values[key] = "" if value is None else str(value).strip()
    for key in _LISTS:
        try:
            values[key] = _tags(data.get(key), lower=key != "sources")
        except ValueError as exc:
            if strict:
                raise SpecError(path, key, str(exc), line=lines.get(key, 1)) from None
            values[key] = ()
    bad = [v for v in values["vendors"] if v not in VENDORS]
    if bad and strict:
        raise SpecError(path, "vendors", f"unknown vendor {bad[0]!r} (known: {', '.join(VENDORS)})", line=lines.get("vendors", 1))
    return DocMeta(**values)


def kernel_doc_meta(meta: KernelMeta) -> DocMeta:
    """A kernel file's declared identity, as document metadata."""
    params = {k: {"values": list(p.values), "default": p.default} for k, p in meta.params.items()}
    return DocMeta(
        title=f"{meta.op}: {meta.strategy} ({meta.dsl})", category="reference-kernel",
        ops=(meta.op.lower(),), techniques=tuple(t.lower() for t in meta.techniques),
        vendors=tuple(v.lower() for v in meta.vendors), archs=tuple(a.lower() for a in meta.archs),
        dsl=(meta.dsl.lower(),), sources=tuple(str(s) for s in meta.sources),
        strategy=meta.strategy, params=params)


def _tags(value: Any, lower: bool) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, (str, int, float)):
        value = [value]
    if not isinstance(value, list) or any(isinstance(v, (dict, list)) or v is None for v in value):
        raise ValueError(f"expected a string or a list of strings, got {value!r}")
    return tuple(str(v).strip().lower() if lower else str(v).strip() for v in value)
