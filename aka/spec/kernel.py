"""Kernel files: the YAML front matter that opens every `reference_kernels/**.py` docstring."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from aka.errors import SpecError

FIELDS = ("op", "strategy", "techniques", "dsl", "vendors", "archs", "params", "points", "requires", "sources")
REQUIRED = ("op", "strategy", "dsl")
REQUIREMENTS = ("gpu",)


@dataclass(frozen=True)
class Param:
    """One tunable parameter: the values the tuner may pick and the default."""

    values: tuple[Any, ...]
    default: Any


@dataclass(frozen=True)
class Point:
    """A parameter point the kernel's author found worth trying first (measured, or argued in the
    docstring; the rest at defaults), at the shapes named, or at every shape when none are."""

    params: dict[str, Any]
    shapes: tuple[str, ...] = ()


@dataclass(frozen=True)
class KernelMeta:
    """The declared identity of a kernel file."""

    path: str
    op: str
    strategy: str
    dsl: str
    techniques: tuple[str, ...] = ()
    vendors: tuple[str, ...] = ()
    archs: tuple[str, ...] = ()
    params: dict[str, Param] = field(default_factory=dict)
    points: tuple[Point, ...] = ()
    """Points the tuner tries before it asks its sampler (`points_for`)."""
    requires: tuple[str, ...] = ()
    """'gpu' when the interpreter cannot run it; `requires_reason` says why."""
    requires_reason: str = ""
    sources: tuple[str, ...] = ()
    summary: str = ""
    """The prose after the front matter."""

    def defaults(self) -> dict[str, Any]:
        return {k: p.default for k, p in self.params.items()}

    def points_for(self, shape_id: str | None = None, named: bool = False) -> list[dict[str, Any]]:
        """The declared points for one shape (None: every declared point, whatever shapes it names),
        in their order, each a whole point (defaults filled in). NAMED: only the points that name
        the shape, not those declared for every shape."""
        return [{**self.defaults(), **p.params} for p in self.points
                if shape_id is None or (shape_id in p.shapes if named else not p.shapes or shape_id in p.shapes)]


def read_kernel_meta(path: str | Path) -> KernelMeta:
    """Parse a kernel file's front matter; SpecError names the file, line and field."""
    return parse_kernel_meta(Path(path).read_text(), str(path))


def parse_kernel_meta(source: str, f: str, fill: dict[str, Any] | None = None) -> KernelMeta:
    """Parse front matter from a kernel's source (`f` names it in errors); `fill` supplies fields
    the front matter leaves out (a model-written kernel may declare only its params)."""
    try:
        tree = ast.parse(source, filename=f)
    except SyntaxError as exc:
        raise SpecError(f, "<python>", f"not valid Python ({exc.msg})", line=exc.lineno) from None
    doc = ast.get_docstring(tree, clean=False)
    if not doc or not doc.lstrip().startswith("---"):
        raise SpecError(f, "<front matter>", "the module docstring must open with '---' YAML front matter", line=1)
    body = doc.lstrip()[3:]
    end = body.find("\n---")
    if end < 0:
        raise SpecError(f, "<front matter>", "front matter is not closed by a '---' line", line=1)
    try:
        data = yaml.safe_load(body[:end])
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise SpecError(f, "<front matter>", f"not valid YAML: {exc}",
                        line=mark.line + 2 if mark else 1) from None
    if not isinstance(data, dict):
        raise SpecError(f, "<front matter>", "expected a mapping", line=1)
    data = {**(fill or {}), **data}
    unknown = sorted(set(data) - set(FIELDS) - {"requires_reason"})
    if unknown:
        raise SpecError(f, unknown[0], f"unknown key (allowed: {', '.join(FIELDS)})", line=1)
    for key in REQUIRED:
        if not isinstance(data.get(key), str) or not data[key]:
            raise SpecError(f, key, "missing required field (a string)", line=1)
    params = {}
    for name, spec in (data.get("params") or {}).items():
        if not isinstance(spec, dict) or "values" not in spec or "default" not in spec:
            raise SpecError(f, f"params.{name}", "expected {values: [...], default: ...}", line=1)
        values = tuple(spec["values"])
        if spec["default"] not in values:
            raise SpecError(f, f"params.{name}", f"default {spec['default']!r} is not among values {list(values)}", line=1)
        params[name] = Param(values=values, default=spec["default"])
    points = tuple(_point(f, i, item, params) for i, item in enumerate(_list(f, data, "points")))
    requires = tuple(_list(f, data, "requires"))
    bad = [r for r in requires if r not in REQUIREMENTS]
    if bad:
        raise SpecError(f, "requires", f"unknown requirement {bad[0]!r} (known: {', '.join(REQUIREMENTS)})", line=1)
    if requires and not str(data.get("requires_reason") or "").strip():
        raise SpecError(f, "requires_reason", "a kernel that requires a GPU must say why", line=1)
    return KernelMeta(
        path=f,
        op=data["op"],
        strategy=data["strategy"],
        dsl=data["dsl"],
        techniques=tuple(_list(f, data, "techniques")),
        vendors=tuple(_list(f, data, "vendors")),
        archs=tuple(str(a) for a in _list(f, data, "archs")),
        params=params,
        points=points,
        requires=requires,
        requires_reason=str(data.get("requires_reason") or ""),
        sources=tuple(_list(f, data, "sources")),
        summary=body[end + 4:].strip(),
    )


def _point(f: str, i: int, item: Any, params: dict[str, Param]) -> Point:
    """One entry of `points`: parameter values (each declared, each among its values) and an
    optional `shapes` list of shape ids."""
    where = f"points[{i}]"
    if not isinstance(item, dict) or not item:
        raise SpecError(f, where, "expected a mapping of parameters to values (and optionally shapes: [ids])", line=1)
    values = {k: v for k, v in item.items() if k != "shapes"}
    for name, value in values.items():
        if name not in params:
            raise SpecError(f, f"{where}.{name}", f"not a declared parameter (declared: {', '.join(params) or 'none'})",
                            line=1)
        if value not in params[name].values:
            raise SpecError(f, f"{where}.{name}", f"{value!r} is not among values {list(params[name].values)}", line=1)
    shapes = item.get("shapes") or []
    if isinstance(shapes, str):
        shapes = [shapes]
    if not isinstance(shapes, list) or not all(isinstance(s, str) and s for s in shapes):
        raise SpecError(f, f"{where}.shapes", f"expected a list of shape ids, got {item.get('shapes')!r}", line=1)
    if not values:
        raise SpecError(f, where, "names no parameter", line=1)
    return Point(params=values, shapes=tuple(shapes))


def _list(f: str, data: dict, key: str) -> list:
    value = data.get(key) or []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SpecError(f, key, f"expected a list, got {value!r}", line=1)
    return value
