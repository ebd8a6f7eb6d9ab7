"""Read an operator (op.yaml folder or file, KernelBench problem file, Atrex-Bench folder) into an OpSpec.

Validation is complete before anything runs: unknown keys, missing fields, bad expressions and a
reference without `Model` raise one SpecError naming the file and the field. The reference is
checked by parsing it, never by importing it.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import yaml

from aka.errors import SpecError
from aka.spec import expr
from aka.spec.op import DTYPES, OpSpec, Production, Roofline, Shape, ShapeWork, Tolerance

REQUIRED = ("name", "reference", "dtype", "shapes")
OPTIONAL = (
    "description", "category", "held_out_shapes", "cpu_shapes", "cpu_held_out_shapes",
    "tolerance", "roofline",
    "mutates", "backend", "baselines", "production", "library",
)
SHAPE_KEYS = {"id", "params", "weight", "phase"}
BACKENDS = ("triton", "cuda")
BASELINES = ("eager", "torch.compile", "production")
PRODUCTION_KEYS = ("file", "library", "note", "requires")
REQUIRES = ("gpu",)
PHASES = ("prefill", "decode", "any")
ATREX_FILES = ("reference.py", "input.py", "shapes.json")


def load_op(path: str | Path) -> OpSpec:
    """Load OP: a folder holding op.yaml, an op.yaml path, a KernelBench problem file, or an
    Atrex-Bench operator folder (reference.py, input.py, shapes.json)."""
    p = Path(path)
    if p.is_dir():
        if not (p / "op.yaml").exists() and any((p / n).exists() for n in ATREX_FILES):
            return _load_atrex(p)
        p = p / "op.yaml"
    if not p.exists():
        raise SpecError(str(p), "path", "no such file (expected a folder with op.yaml, an op.yaml, "
                        "a KernelBench .py problem file, or an Atrex-Bench folder with "
                        "reference.py, input.py and shapes.json)")
    if p.suffix == ".py":
        return _load_kernelbench(p)
    try:
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        raise SpecError(str(p), "<yaml>", f"not valid YAML: {exc}", line=line + 1 if line is not None else None) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(str(p), "<file>", f"cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise SpecError(str(p), "<top>", "expected a mapping of fields")
    return _from_mapping(p, data)


def operator_folder(suites: str | Path, op: str) -> Path | None:
    """The folder of operator OP among the suites under SUITES (`SUITES/*/OP/op.yaml`), or None.
    Operator names are unique across suites; two folders of one name raise a SpecError naming both."""
    found = sorted(p.parent for p in Path(suites).glob(f"*/{op}/op.yaml"))
    if len(found) > 1:
        raise SpecError(str(suites), "name", f"operator {op!r} is defined in more than one suite: "
                        + ", ".join(str(f) for f in found))
    return found[0] if found else None


def _from_mapping(p: Path, data: dict[str, Any]) -> OpSpec:
    f = str(p)
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        raise SpecError(f, unknown[0], f"unknown key (allowed: {', '.join(REQUIRED + OPTIONAL)})")
    for key in REQUIRED:
        if key not in data or data[key] in (None, ""):
            raise SpecError(f, key, "missing required field")
    name = _str(f, "name", data["name"])
    dtype = _dtype(f, "dtype", data["dtype"])
    reference = (p.parent / _str(f, "reference", data["reference"])).resolve()
    _check_reference(f, reference, kernelbench=False)
    shapes = _shapes(f, "shapes", data["shapes"], required=True)
    held = _shapes(f, "held_out_shapes", data.get("held_out_shapes") or [], required=False)
    cpu = _shapes(f, "cpu_shapes", data.get("cpu_shapes") or [], required=False)
    cpu_held = _shapes(f, "cpu_held_out_shapes", data.get("cpu_held_out_shapes") or [], required=False)
    ids = [s.id for s in shapes + held + cpu + cpu_held]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        raise SpecError(f, "shapes", f"shape ids must be unique across all shape lists: {sorted(dup)}")
    production = _production(f, p.parent, data.get("production"), reference)
    spec = OpSpec(
        name=name,
        path=str(p.resolve()),
        reference=str(reference),
        dtype=dtype,
        shapes=shapes,
        held_out_shapes=held,
        cpu_shapes=cpu,
        cpu_held_out_shapes=cpu_held,
        description=str(data.get("description") or ""),
        category=str(data.get("category") or ""),
        tolerance=_tolerance(f, data.get("tolerance")),
        roofline=_roofline(f, data.get("roofline"), dtype, shapes + held + cpu + cpu_held),
        mutates=tuple(_str_list(f, "mutates", data.get("mutates") or [])),
        backend=_choice(f, "backend", data.get("backend", "triton"), BACKENDS),
        baselines=_baselines(f, data.get("baselines"), production),
        production=production,
        library=_str(f, "library", data["library"]) if "library" in data else "",
    )
    return spec


def _baselines(f: str, value: Any, production: Production | None) -> tuple[str, ...]:
    """The baselines to time: as given, else eager and torch.compile (and production when named)."""
    if value is None:
        return BASELINES if production else BASELINES[:2]
    names = tuple(_choice(f, "baselines", b, BASELINES) for b in _str_list(f, "baselines", value))
    if "production" in names and production is None:
        raise SpecError(f, "baselines", "'production' needs a `production:` entry naming its module")
    return names


def _production(f: str, folder: Path, value: Any, reference: Path) -> Production | None:
    """The `production:` entry: a module defining `class Production` with Model's signatures."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise SpecError(f, "production", f"expected a mapping {{file, library, note, requires}}, got {value!r}")
    unknown = sorted(set(value) - set(PRODUCTION_KEYS))
    if unknown:
        raise SpecError(f, f"production.{unknown[0]}", f"unknown key (allowed: {', '.join(PRODUCTION_KEYS)})")
    for key in ("file", "library"):
        if value.get(key) in (None, ""):
            raise SpecError(f, f"production.{key}", "missing required field")
    path = (folder / _str(f, "production.file", value["file"])).resolve()
    if not path.is_file():
        raise SpecError(f, "production.file", f"production module not found: {path}")
    tree = _parse_python(f, "production.file", path)
    _require(f, "production.file", path, tree, "Production", ())
    _same_signatures(f, path, tree, _parse_python(f, "reference", reference))
    requires = _str_list(f, "production.requires", value.get("requires") or [])
    return Production(file=str(path), library=_str(f, "production.library", value["library"]),
                      note=str(value.get("note") or ""),
                      requires=tuple(_choice(f, "production.requires", r, REQUIRES) for r in requires))


def _same_signatures(f: str, path: Path, tree: ast.Module, ref_tree: ast.Module) -> None:
    """Production's __init__ and forward take the parameters Model's do (the harness calls both alike)."""
    model, prod = (next(n for n in t.body if isinstance(n, ast.ClassDef) and n.name == name)
                   for t, name in ((ref_tree, "Model"), (tree, "Production")))
    for method in ("__init__", "forward"):
        want, got = _parameters(_function(model.body, method)), _parameters(_function(prod.body, method))
        if want is not None and got is not None and want != got:
            raise SpecError(f, "production.file", f"{path}: Production.{method} takes ({', '.join(got)}), the "
                            f"reference's Model.{method} takes ({', '.join(want)}); both are called alike")


def _parameters(fn: ast.FunctionDef | None) -> list[str] | None:
    """A method's parameter names after self (None: not defined in the class body)."""
    if fn is None:
        return None
    a = fn.args
    return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs][1:]


def _load_kernelbench(p: Path) -> OpSpec:
    f = str(p)
    _check_reference(f, p, kernelbench=True)
    return OpSpec(
        name=p.stem,
        path=str(p.resolve()),
        reference=str(p.resolve()),
        dtype="float32",
        shapes=(Shape(id="default", params={}),),
        kernelbench=True,
    )


def _check_reference(f: str, ref: Path, *, kernelbench: bool) -> None:
    field = "path" if kernelbench else "reference"
    if not ref.is_file():
        raise SpecError(f, field, f"reference file not found: {ref}")
    tree = _parse_python(f, field, ref)
    needed = ("get_inputs", "get_init_inputs") if kernelbench else ("make_inputs",)
    _require(f, field, ref, tree, "Model", needed)


def _parse_python(f: str, field: str, path: Path) -> ast.Module:
    try:
        return ast.parse(path.read_text(), filename=str(path))
    except SyntaxError as exc:
        line = exc.lineno if f == str(path) else None  # a line of F itself, or only in the message
        raise SpecError(f, field, f"{path}:{exc.lineno}: not valid Python ({exc.msg})", line=line) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f, field, f"cannot read {path}: {exc}") from None


def _require(f: str, field: str, path: Path, tree: ast.Module, cls: str | None, funcs: tuple[str, ...]) -> None:
    """The file defines `class <cls>` and each function in FUNCS at its top level."""
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    if cls and cls not in classes:
        raise SpecError(f, field, f"{path} defines no `class {cls}(torch.nn.Module)`")
    for fn in funcs:
        if fn not in defined:
            raise SpecError(f, field, f"{path} defines no `{fn}` function")


def _str(f: str, field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise SpecError(f, field, f"expected a non-empty string, got {value!r}")
    return value


def _str_list(f: str, field: str, value: Any) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SpecError(f, field, f"expected a list of strings, got {value!r}")
    return value


def _choice(f: str, field: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise SpecError(f, field, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def _dtype(f: str, field: str, value: Any) -> str:
    if value not in DTYPES:
        raise SpecError(f, field, f"unknown dtype {value!r} (known: {', '.join(sorted(set(DTYPES.values())))})")
    return DTYPES[value]


def _number(f: str, field: str, value: Any, *, minimum: float = 0.0) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < minimum:
        raise SpecError(f, field, f"expected a number >= {minimum}, got {value!r}")
    return float(value)


def _shapes(f: str, field: str, value: Any, *, required: bool) -> tuple[Shape, ...]:
    if not isinstance(value, list) or (required and not value):
        raise SpecError(f, field, "expected a non-empty list of {id, params, weight, phase}" if required
                        else "expected a list of {id, params, weight, phase}")
    shapes = []
    for i, item in enumerate(value):
        where = f"{field}[{i}]"
        if not isinstance(item, dict):
            raise SpecError(f, where, f"expected a mapping, got {item!r}")
        unknown = sorted(set(item) - SHAPE_KEYS)
        if unknown:
            raise SpecError(f, f"{where}.{unknown[0]}", f"unknown key (allowed: {', '.join(sorted(SHAPE_KEYS))})")
        if "id" not in item:
            raise SpecError(f, f"{where}.id", "missing required field")
        params = item.get("params", {}) or {}
        if not isinstance(params, dict) or not all(isinstance(k, str) for k in params):
            raise SpecError(f, f"{where}.params", f"expected a mapping of name -> value, got {params!r}")
        phase = item.get("phase", "any")
        shapes.append(Shape(
            id=_str(f, f"{where}.id", str(item["id"])),
            params=dict(params),
            weight=_number(f, f"{where}.weight", item.get("weight", 1.0)),
            phase=_choice(f, f"{where}.phase", phase, PHASES),
        ))
    return tuple(shapes)


def _tolerance(f: str, value: Any) -> Tolerance | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"atol", "rtol", "outputs"} or not {"atol", "rtol"} <= set(value):
        raise SpecError(f, "tolerance", f"expected {{atol, rtol}} (both) and optional outputs, got {value!r}")
    outputs = {}
    for path, bound in (value.get("outputs") or {}).items():
        field = f"tolerance.outputs.{path}"
        if not isinstance(path, str) or not path.startswith("out"):
            raise SpecError(f, field, "an output path as aka reports it: out, out[1], out['name']")
        if not isinstance(bound, dict) or set(bound) != {"atol", "rtol"}:
            raise SpecError(f, field, f"expected {{atol, rtol}}, got {bound!r}")
        outputs[path] = (_number(f, f"{field}.atol", bound["atol"]), _number(f, f"{field}.rtol", bound["rtol"]))
    return Tolerance(
        atol=_number(f, "tolerance.atol", value["atol"]),
        rtol=_number(f, "tolerance.rtol", value["rtol"]),
        outputs=outputs,
    )


def _roofline(f: str, value: Any, dtype: str, shapes: tuple[Shape, ...]) -> Roofline | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) - {"flops", "bytes"}:
        raise SpecError(f, "roofline", f"expected {{flops, bytes}}, got {value!r}")
    flops_raw = value.get("flops", 0)
    if isinstance(flops_raw, dict):
        flops = {_dtype(f, f"roofline.flops.{k}", k): v for k, v in flops_raw.items()}
    else:
        flops = {dtype: flops_raw}
    byts = value.get("bytes", "auto")
    exprs = {f"roofline.flops.{k}": v for k, v in flops.items()}
    if byts != "auto":
        exprs["roofline.bytes"] = byts
    for field, text in exprs.items():
        try:
            used = expr.names(text)
        except expr.ExpressionError as exc:
            raise SpecError(f, field, str(exc)) from None
        for s in shapes:
            missing = used - set(s.params)
            if missing:
                raise SpecError(f, field, f"uses {sorted(missing)}, not a param of shape {s.id!r}")
            try:
                expr.evaluate(text, s.params)
            except expr.ExpressionError as exc:
                raise SpecError(f, field, f"shape {s.id!r}: {exc}") from None
    return Roofline(flops={k: str(v) for k, v in flops.items()}, bytes=str(byts))


def _load_atrex(folder: Path) -> OpSpec:
    """An Atrex-Bench operator folder: reference.py (class Model), input.py (_make_inputs),
    shapes.json, and optionally metadata.json and roofline.json (scoring only)."""
    for name in ATREX_FILES:
        if not (folder / name).is_file():
            raise SpecError(str(folder / name), "<file>", "missing: an Atrex-Bench operator folder holds "
                            f"{', '.join(ATREX_FILES)} (an op.yaml operator folder holds op.yaml)")
    ref, inp, shapes_file = (folder / n for n in ATREX_FILES)
    ref_tree = _parse_python(str(ref), "<python>", ref)
    _require(str(ref), "Model", ref, ref_tree, "Model", ())
    inp_tree = _parse_python(str(inp), "<python>", inp)
    _require(str(inp), "_make_inputs", inp, inp_tree, None, ("_make_inputs",))
    entries = _atrex_shapes(str(shapes_file), _json(shapes_file, required=True))
    _check_kwargs(str(shapes_file), entries, "input_kwargs", _function(inp_tree.body, "_make_inputs"), inp)
    model = next(n for n in ref_tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    _check_kwargs(str(shapes_file), entries, "init_kwargs", _function(model.body, "__init__"), ref)
    meta = _atrex_metadata(folder / "metadata.json", [sid for sid, _, _ in entries])
    shapes = tuple(Shape(id=sid, params=dict(inputs), weight=meta["weights"][sid], phase=meta["phases"][sid],
                         init_kwargs=dict(init or {})) for sid, inputs, init in entries)
    return OpSpec(
        name=folder.name,
        path=str(folder.resolve()),
        reference=str(ref.resolve()),
        dtype=meta["dtype"],
        shapes=shapes,
        form="atrex",
        inputs=str(inp.resolve()),
        input_dtypes=meta["input_dtypes"],
        importance=meta["importance"],
        shape_work=_atrex_work(folder / "roofline.json", {s.id for s in shapes}),
    )


def _json(path: Path, *, required: bool = False) -> dict[str, Any] | None:
    if not path.is_file() and not required:
        return None
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise SpecError(str(path), "<json>", f"not valid JSON: {exc.msg}", line=exc.lineno) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(str(path), "<file>", f"cannot read: {exc}") from None
    if not isinstance(data, dict):
        raise SpecError(str(path), "<top>", f"expected a JSON object, got {type(data).__name__}")
    return data


def _mapping(f: str, field: str, value: Any, *, nullable: bool = False) -> dict[str, Any] | None:
    if value is None and nullable:
        return None
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise SpecError(f, field, f"expected an object of name -> value{', or null' if nullable else ''}, got {value!r}")
    return value


def _atrex_shapes(f: str, data: dict[str, Any]) -> list[tuple[str, dict, dict | None]]:
    """(shape id, input_kwargs, init_kwargs) per shapes.json entry, in file order."""
    if not data:
        raise SpecError(f, "<top>", "expected at least one shape: {shape_id: {init_kwargs, input_kwargs}}")
    entries = []
    for sid, entry in data.items():
        if not isinstance(entry, dict):
            raise SpecError(f, sid, f"expected an object {{init_kwargs, input_kwargs}}, got {entry!r}")
        if entry.get("input_kwargs") is None:
            raise SpecError(f, f"{sid}.input_kwargs", "missing required field")
        inputs = _mapping(f, f"{sid}.input_kwargs", entry["input_kwargs"])
        init = _mapping(f, f"{sid}.init_kwargs", entry.get("init_kwargs"), nullable=True)
        for other, other_inputs, other_init in entries:
            if other_inputs == inputs and (other_init or {}) != (init or {}):
                raise SpecError(f, f"{sid}.init_kwargs", f"shape {other!r} has the same input_kwargs and other "
                                "init_kwargs; aka tells shapes apart by their input_kwargs")
        entries.append((sid, inputs, init))
    return entries


def _function(body: list[ast.stmt], name: str) -> ast.FunctionDef | None:
    return next((n for n in body if isinstance(n, ast.FunctionDef) and n.name == name), None)


def _check_kwargs(f: str, entries: list, key: str, fn: ast.FunctionDef | None, source: Path) -> None:
    """Each shape's KEY mapping fits FN's signature (skipped for **kwargs or an inherited __init__)."""
    if fn is None or fn.args.kwarg is not None:
        return
    a = fn.args
    args = [x.arg for x in a.args if x.arg != "self"]
    n_default = len(a.defaults)
    required = set(args[: len(args) - n_default] if n_default else args)
    required |= {x.arg for x, d in zip(a.kwonlyargs, a.kw_defaults) if d is None}
    names = set(args) | {x.arg for x in a.kwonlyargs}
    for sid, inputs, init in entries:
        given = (inputs if key == "input_kwargs" else init) or {}
        unknown = sorted(set(given) - names)
        if unknown:
            raise SpecError(f, f"{sid}.{key}.{unknown[0]}", f"not a parameter of {fn.name} in {source} "
                            f"(it takes: {', '.join(sorted(names)) or 'nothing'})")
        missing = sorted(required - set(given))
        if missing:
            raise SpecError(f, f"{sid}.{key}", f"lacks {', '.join(missing)}, required by {fn.name} in {source}")


def _atrex_metadata(path: Path, ids: list[str]) -> dict[str, Any]:
    """dtype, input dtypes, importance, and per-shape weights (call counts) and phases."""
    data = _json(path) or {}
    f = str(path)
    dtype = _dtype(f, "dtype", data["dtype"]) if data.get("dtype") is not None else "float32"
    importance = data.get("importance_score")
    importance = None if importance is None else _number(f, "importance_score", importance)
    input_dtypes = _mapping(f, "input_dtypes", data.get("input_dtypes") or {})
    input_dtypes = {k: DTYPES.get(str(v), str(v)) for k, v in input_dtypes.items()}
    per_shape = _mapping(f, "shapes", data.get("shapes") or {})
    counts, phases = {}, {}
    for sid in ids:
        entry = _mapping(f, f"shapes.{sid}", per_shape.get(sid) or {})
        if entry.get("call_count") is not None:
            counts[sid] = _number(f, f"shapes.{sid}.call_count", entry["call_count"])
        phases[sid] = _atrex_phase(f, f"shapes.{sid}.phase", entry.get("phase", data.get("phase")))
    # a shape without a call count weighs as much as the average counted one (unknown, not rare)
    fill = sum(counts.values()) / len(counts) if counts else 1.0
    weights = {sid: counts.get(sid, fill) for sid in ids}
    return {"dtype": dtype, "importance": importance, "input_dtypes": input_dtypes,
            "weights": weights, "phases": phases}


def _atrex_phase(f: str, field: str, value: Any) -> str:
    """'prefill' or 'decode' when the metadata names one; 'any' for 'prefill/decode' or none."""
    if value is None:
        return "any"
    if not isinstance(value, str):
        raise SpecError(f, field, f"expected a string such as 'prefill/decode', got {value!r}")
    return value.strip().lower() if value.strip().lower() in ("prefill", "decode") else "any"


def _atrex_work(path: Path, ids: set[str]) -> dict[str, ShapeWork]:
    """Per-shape FLOPs and bytes from roofline.json; entries not yet measured (null) are skipped."""
    data = _json(path) or {}
    f = str(path)
    work = {}
    for sid, entry in (_mapping(f, "shapes", data.get("shapes") or {})).items():
        if sid not in ids or entry is None:
            continue
        entry = _mapping(f, f"shapes.{sid}", entry)
        read, write = entry.get("semantic_Q_read_bytes"), entry.get("semantic_Q_write_bytes")
        if read is None or write is None:
            continue
        field = f"shapes.{sid}.semantic_W_flops"
        flops = {_dtype(f, f"{field}.{k}", k): _number(f, f"{field}.{k}", v)
                 for k, v in _mapping(f, field, entry.get("semantic_W_flops") or {}).items() if v is not None}
        field = f"shapes.{sid}.SOL_time_ms"
        sol = {k: _number(f, f"{field}.{k}", v)
               for k, v in _mapping(f, field, entry.get("SOL_time_ms") or {}).items() if v is not None}
        work[sid] = ShapeWork(flops=flops, read_bytes=_number(f, f"shapes.{sid}.semantic_Q_read_bytes", read),
                              write_bytes=_number(f, f"shapes.{sid}.semantic_Q_write_bytes", write),
                              sol_time_ms=sol)
    return work
