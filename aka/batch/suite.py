"""A suite: a folder of operators read as it is (aka op.yaml folders, a KernelBench checkout or level
folder, an Atrex-Bench checkout), with an optional `suite.yaml`.

Importers resolve by `can_handle()`: one match wins, none or several is an error naming the
folder. Nothing here imports an operator's code or loads its spec: a broken operator is found when
it runs, and is reported as errored there. Weights, phases and production times are scoring data
and never reach a proposer.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import yaml

from aka.errors import InputError, SpecError

SUITE_FILE = "suite.yaml"
SUITE_KEYS = {"name", "weights", "phases", "budget", "operators"}
BUDGET_KEYS = {"iterations", "time_limit_min"}
PHASES = ("prefill", "decode", "any")


@dataclass(frozen=True)
class Operator:
    """One operator of a suite."""

    name: str
    """Unique within the suite: names its folder in the run and its file in --candidates."""
    path: str
    """What `aka.spec.load.load_op` reads: an op.yaml folder, a problem .py file or an Atrex folder."""
    form: str
    """'op.yaml', 'kernelbench' or 'atrex'."""
    weight: float | None = None
    """The suite's raw importance of this operator (not normalized); None: not given."""
    phase: str = "any"
    """'prefill', 'decode' or 'any' (scoreboard breakdown only)."""
    production_us: dict[str, dict[str, float]] = field(default_factory=dict)
    """Device SKU -> shape id -> a production kernel's time in µs (Atrex metadata), scoring only."""


@dataclass(frozen=True)
class Suite:
    """A suite as found on disk, with its suite.yaml applied."""

    name: str
    root: str
    kind: str
    """'aka', 'kernelbench' or 'atrex': the importer that read it."""
    operators: tuple[Operator, ...]
    weight_source: str
    """Where the weights came from: 'suite.yaml', 'operator_importance.json', 'metadata.json' or
    'equal' (none given)."""
    budget: dict[str, Any] = field(default_factory=dict)
    """Default optimize budget: iterations, time_limit_min."""
    subset_of: int | None = None
    """When only some operators were asked for (`aka batch --ops`): how many the suite holds."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def only(self, names: list[str]) -> "Suite":
        """The suite narrowed to NAMES (in the suite's order); an unknown name is an InputError that
        lists the suite's operators."""
        known = [o.name for o in self.operators]
        unknown = [n for n in names if n not in known]
        if unknown:
            raise InputError(f"--ops: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not an operator of "
                             f"suite {self.name} ({self.root}); its operators: {', '.join(known)}")
        if not names:
            raise InputError("--ops: name at least one operator")
        return replace(self, operators=tuple(o for o in self.operators if o.name in set(names)),
                       subset_of=len(self.operators))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Suite":
        data = dict(data)
        data["operators"] = tuple(Operator(**o) for o in data["operators"])
        return cls(**data)

    def operator(self, name: str) -> Operator:
        for op in self.operators:
            if op.name == name:
                return op
        raise KeyError(name)


class Importer(Protocol):
    """Reads one kind of suite folder."""

    kind: str

    def can_handle(self, root: Path) -> bool: ...

    def read(self, root: Path) -> tuple[list[Operator], str]:
        """(operators in a stable order, weight source)."""
        ...


def safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", text)


class AkaImporter:
    """aka suites: sub-folders holding op.yaml."""

    kind = "aka"

    def can_handle(self, root: Path) -> bool:
        return any((d / "op.yaml").is_file() for d in _subdirs(root))

    def read(self, root: Path) -> tuple[list[Operator], str]:
        ops = [Operator(name=safe_name(d.name), path=str(d.resolve()), form="op.yaml")
               for d in _subdirs(root) if (d / "op.yaml").is_file()]
        return ops, "equal"


class KernelBenchImporter:
    """A KernelBench checkout (KernelBench/level*/ problem files) or one level folder of them."""

    kind = "kernelbench"

    def can_handle(self, root: Path) -> bool:
        return bool(self._files(root))

    def read(self, root: Path) -> tuple[list[Operator], str]:
        ops = [Operator(name=name, path=str(p.resolve()), form="kernelbench") for name, p in self._files(root)]
        return ops, "equal"

    def _files(self, root: Path) -> list[tuple[str, Path]]:
        levels = sorted(d for d in (root / "KernelBench").glob("level*") if d.is_dir()) if (root / "KernelBench").is_dir() else []
        if levels:
            return [(f"{lvl.name}-{safe_name(p.stem)}", p) for lvl in levels for p in _problems(lvl)]
        return [(safe_name(p.stem), p) for p in _problems(root)]


class AtrexImporter:
    """An Atrex-Bench checkout: data/<op>/ (reference.py, input.py, shapes.json, metadata.json,
    roofline.json) and data/operator_importance.json; the data/ folder itself also works."""

    kind = "atrex"
    FILES = ("reference.py", "input.py", "shapes.json")

    def can_handle(self, root: Path) -> bool:
        return bool(self._folders(root))

    def read(self, root: Path) -> tuple[list[Operator], str]:
        data = self._data(root)
        ranked = _json_or_empty(data / "operator_importance.json").get("operators") or {}
        ops, sources = [], set()
        for d in self._folders(root):
            meta = _json_or_empty(d / "metadata.json")
            entry = ranked.get(d.name) if isinstance(ranked.get(d.name), dict) else {}
            weight, source = _number(entry.get("importance_score")), "operator_importance.json"
            if weight is None:
                weight, source = _number(meta.get("importance_score")), "metadata.json"
            if weight is not None:
                sources.add(source)
            phase = _phase(entry.get("phase") or meta.get("phase"))
            ops.append(Operator(name=safe_name(d.name), path=str(d.resolve()), form="atrex", weight=weight,
                                phase=phase, production_us=_production(meta)))
        return ops, " and ".join(sorted(sources)) or "equal"

    def _data(self, root: Path) -> Path:
        return root / "data" if (root / "data").is_dir() else root

    def _folders(self, root: Path) -> list[Path]:
        return [d for d in _subdirs(self._data(root)) if any((d / f).is_file() for f in self.FILES)
                and not (d / "op.yaml").is_file()]


IMPORTERS: tuple[Importer, ...] = (AtrexImporter(), KernelBenchImporter(), AkaImporter())


def discover(root: str | Path) -> Suite:
    """Read the suite at ROOT (one importer must claim it), then apply its suite.yaml."""
    p = Path(root)
    if not p.is_dir():
        raise InputError(f"{p}: no such suite folder (a folder of op.yaml operators, a KernelBench "
                         "checkout or level folder, or an Atrex-Bench checkout)")
    matches = [imp for imp in IMPORTERS if imp.can_handle(p)]
    if not matches:
        raise InputError(f"{p}: not a suite: no op.yaml sub-folders, no KernelBench problem files "
                         "(Model, get_inputs, get_init_inputs) and no Atrex-Bench data/<op>/ folders")
    if len(matches) > 1:
        raise InputError(f"{p}: the folder reads as several kinds of suite ({', '.join(m.kind for m in matches)}); "
                         "point at one kind's folder")
    importer = matches[0]
    ops, source = importer.read(p)
    names = [o.name for o in ops]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise InputError(f"{p}: operator names are not unique: {dup}")
    return _apply_suite_file(Suite(name=p.resolve().name, root=str(p.resolve()), kind=importer.kind,
                                   operators=tuple(ops), weight_source=source), p / SUITE_FILE)


def _apply_suite_file(suite: Suite, path: Path) -> Suite:
    if not path.is_file():
        return suite
    f = str(path)
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise SpecError(f, "<yaml>", f"not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise SpecError(f, "<top>", "expected a mapping (name, weights, phases, budget, operators)")
    unknown = sorted(set(data) - SUITE_KEYS)
    if unknown:
        raise SpecError(f, unknown[0], f"unknown key (allowed: {', '.join(sorted(SUITE_KEYS))})")
    known = {o.name for o in suite.operators}
    weights = _op_map(f, "weights", data.get("weights"), known)
    phases = _op_map(f, "phases", data.get("phases"), known)
    ops = list(suite.operators)
    if data.get("operators") is not None:
        chosen = data["operators"]
        if not isinstance(chosen, list) or not set(map(str, chosen)) <= known:
            raise SpecError(f, "operators", f"expected a list of this suite's operators (known: {', '.join(sorted(known))})")
        ops = [o for o in ops if o.name in set(map(str, chosen))]
    for name, w in weights.items():
        if _number(w) is None or float(w) < 0:
            raise SpecError(f, f"weights.{name}", f"expected a number >= 0, got {w!r}")
    for name, ph in phases.items():
        if ph not in PHASES:
            raise SpecError(f, f"phases.{name}", f"expected one of {', '.join(PHASES)}, got {ph!r}")
    ops = [Operator(**{**asdict(o), "weight": float(weights[o.name]) if o.name in weights else o.weight,
                       "phase": phases.get(o.name, o.phase)}) for o in ops]
    budget = data.get("budget") or {}
    if not isinstance(budget, dict) or set(budget) - BUDGET_KEYS:
        raise SpecError(f, "budget", f"expected a mapping of {', '.join(sorted(BUDGET_KEYS))}")
    return Suite(name=str(data.get("name") or suite.name), root=suite.root, kind=suite.kind, operators=tuple(ops),
                 weight_source="suite.yaml" if weights else suite.weight_source, budget=dict(budget))


def _op_map(f: str, field: str, value: Any, known: set[str]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SpecError(f, field, "expected a mapping of operator name -> value")
    unknown = sorted(set(map(str, value)) - known)
    if unknown:
        raise SpecError(f, f"{field}.{unknown[0]}", f"not an operator of this suite (known: {', '.join(sorted(known))})")
    return {str(k): v for k, v in value.items()}


def _subdirs(root: Path) -> list[Path]:
    return sorted(d for d in root.iterdir() if d.is_dir() and not d.name.startswith((".", "_")))


def _problems(folder: Path) -> list[Path]:
    """KernelBench problem files in FOLDER: they define Model, get_inputs and get_init_inputs."""
    out = []
    for p in sorted(folder.glob("*.py")):
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError):
            continue
        if "class Model" in text and "def get_inputs" in text and "def get_init_inputs" in text:
            out.append(p)
    return out


def _json_or_empty(path: Path) -> dict[str, Any]:
    """A JSON object, or {} when the file is missing or broken (the operator's own load says why)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, UnicodeDecodeError):
        return {}
    return data if isinstance(data, dict) else {}


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _phase(value: Any) -> str:
    text = str(value or "").strip().lower()
    return text if text in ("prefill", "decode") else "any"


def _production(meta: dict[str, Any]) -> dict[str, dict[str, float]]:
    """SKU -> shape id -> µs from metadata.json's per-shape production_performance."""
    out: dict[str, dict[str, float]] = {}
    shapes = meta.get("shapes") if isinstance(meta.get("shapes"), dict) else {}
    for sid, entry in shapes.items():
        perf = entry.get("production_performance") if isinstance(entry, dict) else None
        for sku, row in (perf or {}).items() if isinstance(perf, dict) else ():
            us = _number(row.get("performance_us")) if isinstance(row, dict) else None
            if us is not None and us > 0:
                out.setdefault(str(sku), {})[str(sid)] = us
    return out
