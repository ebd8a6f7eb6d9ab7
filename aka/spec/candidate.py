"""The candidate record: a kernel's source, its parameter point, where it came from; content-hashed.

A candidate travels between the loop's parts as this record, never as a bare path. Its hash keys
caches, journal references and replay. `materialize()` gives the file the harness runs: the source
with every parameter written into its module-level constant (`BLOCK_N = 1024` becomes
`BLOCK_N = 4096`), so the file alone reproduces the kernel.
"""

from __future__ import annotations

import ast
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any, Literal

from aka.errors import CandidateError

Origin = Literal["reference", "tuner", "llm", "user", "dispatcher", "replay"]
ORIGINS = ("reference", "tuner", "llm", "user", "dispatcher", "replay")
SHIPPED_ORIGINS = ("tuner", "dispatcher")
"""Origins whose code aka itself generates from the reference kernels it ships."""
FORMAT = "aka.candidate/1"


@dataclass(frozen=True)
class Candidate:
    """One kernel to evaluate.

    Two candidates with the same source and parameter point are the same candidate (same `hash`),
    whatever their name, parent or origin.
    """

    source: str
    """Python source defining `class ModelNew` (before parameters are applied)."""
    params: dict[str, Any] = field(default_factory=dict)
    """Parameter point: module-level constant name -> value (int, float, bool or str)."""
    origin: str = "user"
    """Who proposed it: one of ORIGINS."""
    name: str = "candidate"
    """Display name (a kernel file, 'dispatcher', 'llm-v003'); not part of the identity."""
    parent: str | None = None
    """Hash of the candidate it was derived from (the incumbent when it was proposed)."""
    rationale: str = ""
    """Why it was proposed (the proposer's hypothesis)."""
    family: str = ""
    """The reference-kernel family it belongs to (its path relative to the repository), if any."""

    def __post_init__(self) -> None:
        if self.origin not in ORIGINS:
            raise ValueError(f"candidate origin {self.origin!r}: expected one of {', '.join(ORIGINS)}")
        for key, value in self.params.items():
            if not key.isidentifier():
                raise ValueError(f"parameter name {key!r} is not a Python identifier")
            if not isinstance(value, (int, float, bool, str)):
                raise ValueError(f"parameter {key}={value!r}: only int, float, bool and str values")

    @property
    def shipped(self) -> bool:
        """Code aka ships (see SHIPPED_ORIGINS): it may share compiled kernels with its kind."""
        return self.origin in SHIPPED_ORIGINS

    @property
    def hash(self) -> str:
        """sha256 of the source and the parameter point (name, origin and parent excluded)."""
        blob = json.dumps({"source": self.source, "params": self.params}, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()

    @property
    def short(self) -> str:
        return self.hash[:12]

    def materialize(self) -> str:
        """The source with each parameter set as its module-level constant."""
        return apply_params(self.source, self.params, self.name)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "hash": self.hash, "source": self.source, "params": dict(self.params),
                "origin": self.origin, "name": self.name, "parent": self.parent,
                "rationale": self.rationale, "family": self.family}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Candidate":
        fmt = data.get("format", FORMAT)
        if fmt != FORMAT:
            raise ValueError(f"candidate record format {fmt!r}, expected {FORMAT!r}")
        cand = cls(source=data["source"], params=dict(data.get("params") or {}),
                   origin=data.get("origin", "user"), name=data.get("name", "candidate"),
                   parent=data.get("parent"), rationale=data.get("rationale", ""),
                   family=data.get("family", ""))
        if data.get("hash") and data["hash"] != cand.hash:
            raise ValueError(f"candidate {cand.name}: recorded hash {data['hash'][:12]} does not match "
                             f"its content ({cand.short}); the record was altered")
        return cand


def module_constants(source: str) -> dict[str, ast.Assign]:
    """Top-level `NAME = <literal>` assignments of a source, by name."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node
    return found


def apply_params(source: str, params: dict[str, Any], name: str = "candidate") -> str:
    """Rewrite the module-level constants named in `params`; every parameter must exist as one."""
    if not params:
        return source
    consts = module_constants(source)
    missing = sorted(set(params) - set(consts))
    if missing:
        raise CandidateError(f"{name}: parameter(s) {missing} are not module-level constants "
                             "(`NAME = value` at the top level) of its source")
    lines = source.splitlines(keepends=True)
    # edit from the bottom up so earlier positions stay valid
    for key in sorted(params, key=lambda k: consts[k].lineno, reverse=True):
        value = consts[key].value
        start, end = value.lineno - 1, (value.end_lineno or value.lineno) - 1
        head = lines[start].encode()[: value.col_offset].decode()      # ast offsets are UTF-8 bytes
        tail = lines[end].encode()[value.end_col_offset:].decode()
        lines[start:end + 1] = [head + repr(params[key]) + tail]
    return "".join(lines)
