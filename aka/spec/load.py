"""Read an operator (op.yaml folder or file, or a KernelBench problem file) into an OpSpec.

Validation is complete before anything runs: unknown keys, missing fields, bad expressions and a
reference without `Model` raise one SpecError naming the file and the field. The reference is
checked by parsing it, never by importing it.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import yaml

from aka.errors import SpecError
from aka.spec import expr
from aka.spec.op import DTYPES, OpSpec, Roofline, Shape, Tolerance

REQUIRED = ("name", "reference", "dtype", "shapes")
OPTIONAL = (
    "description", "category", "held_out_shapes", "cpu_shapes", "cpu_held_out_shapes",
    "tolerance", "roofline",
    "mutates", "backend", "baselines",
)
SHAPE_KEYS = {"id", "params", "weight", "phase"}
BACKENDS = ("triton", "cuda")
BASELINES = ("eager", "torch.compile")
PHASES = ("prefill", "decode", "any")


def load_op(path: str | Path) -> OpSpec:
    """Load OP: a folder holding op.yaml, an op.yaml path, or a KernelBench problem file."""
    p = Path(path)
    if p.is_dir():
        p = p / "op.yaml"
    if not p.exists():
        raise SpecError(str(p), "path", "no such file (expected a folder with op.yaml, an op.yaml, "
                        "or a KernelBench .py problem file)")
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
        baselines=tuple(_choice(f, "baselines", b, BASELINES)
                        for b in _str_list(f, "baselines", data.get("baselines", list(BASELINES)))),
    )
    return spec


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
    try:
        tree = ast.parse(ref.read_text(), filename=str(ref))
    except SyntaxError as exc:
        raise SpecError(f, field, f"{ref}:{exc.lineno}: not valid Python ({exc.msg})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f, field, f"cannot read {ref}: {exc}") from None
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    funcs = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    if "Model" not in classes:
        raise SpecError(f, field, f"{ref} defines no `class Model(torch.nn.Module)`")
    needed = ("get_inputs", "get_init_inputs") if kernelbench else ("make_inputs",)
    for fn in needed:
        if fn not in funcs:
            raise SpecError(f, field, f"{ref} defines no `{fn}` function")


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
