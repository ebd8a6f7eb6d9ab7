"""The operator spec: what an op.yaml, a KernelBench problem file or an Atrex-Bench folder declares."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Phase = Literal["prefill", "decode", "any"]
Form = Literal["op.yaml", "kernelbench", "atrex"]

DTYPES = {
    "bfloat16": "bfloat16", "bf16": "bfloat16",
    "float16": "float16", "fp16": "float16", "half": "float16",
    "float32": "float32", "fp32": "float32", "float": "float32",
    "float64": "float64", "fp64": "float64",
    "float8_e4m3fn": "float8_e4m3fn", "fp8_e4m3": "float8_e4m3fn",
    "float8_e5m2": "float8_e5m2", "fp8_e5m2": "float8_e5m2",
    "int8": "int8", "int32": "int32", "int64": "int64",
}

# Default comparison tolerances per dtype: roughly a few units in the last place of the output
# dtype, loose enough for a different reduction order, tight enough to catch a wrong formula.
DEFAULT_TOLERANCE = {
    "float64": (1e-7, 1e-7),
    "float32": (1e-4, 1e-4),
    "float16": (5e-3, 5e-3),
    "bfloat16": (2e-2, 2e-2),
    "float8_e4m3fn": (1.25e-1, 1.25e-1),
    "float8_e5m2": (2.5e-1, 2.5e-1),
    "int8": (0.0, 0.0),
    "int32": (0.0, 0.0),
    "int64": (0.0, 0.0),
}


@dataclass(frozen=True)
class Shape:
    """One problem size of an operator."""

    id: str
    """Unique within the spec; names the shape in results and on the command line."""
    params: dict[str, Any]
    """Keyword arguments for `make_inputs` / `init_kwargs`, and names for roofline expressions."""
    weight: float = 1.0
    """Importance of this shape inside the operator (normalized by the scoreboard)."""
    phase: Phase = "any"
    """Serving phase the shape stands for."""
    init_kwargs: dict[str, Any] | None = None
    """Constructor keyword arguments of this shape (an Atrex shapes.json `init_kwargs`); None: the
    reference's `init_kwargs(**params)` if it has one, else none."""


@dataclass(frozen=True)
class Tolerance:
    """Elementwise comparison bound: |out - ref| <= atol + rtol * |ref|."""

    atol: float
    rtol: float
    outputs: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Per-output overrides by output path ('out[1]', "out['scale']"): (atol, rtol)."""

    def for_path(self, path: str) -> tuple[float, float]:
        return self.outputs.get(path, (self.atol, self.rtol))


@dataclass(frozen=True)
class Roofline:
    """Work of one call, as expressions over shape params."""

    flops: dict[str, str]
    """Compute dtype -> FLOP-count expression (a plain expression maps to the op's dtype)."""
    bytes: str
    """Byte-count expression, or 'auto' (all inputs, parameters and outputs, each once)."""


@dataclass(frozen=True)
class ShapeWork:
    """Work of one call at one shape, given as numbers (an Atrex roofline.json entry)."""

    flops: dict[str, float]
    """Compute dtype -> FLOPs."""
    read_bytes: float
    write_bytes: float
    sol_time_ms: dict[str, float] = field(default_factory=dict)
    """Device name -> the benchmark's own speed-of-light time (informational)."""

    @property
    def bytes(self) -> float:
        return self.read_bytes + self.write_bytes


@dataclass(frozen=True)
class Production:
    """The kernel a serving stack runs for this operator, called through the library torch exposes
    (op.yaml `production:`): timed like eager and torch.compile, never shown as a candidate."""

    file: str
    """Absolute path of the module defining `class Production(torch.nn.Module)`, with `Model`'s
    constructor, forward signature and parameter names (the harness loads the reference's
    state_dict into it)."""
    library: str
    """What it calls, e.g. 'cuBLASLt via F.linear'."""
    note: str = ""
    requires: tuple[str, ...] = ()
    """'gpu': it cannot run on the CPU interpreter, where it is skipped with a note."""


@dataclass(frozen=True)
class OpSpec:
    """A validated operator: reference, shapes, tolerance, roofline and baselines."""

    name: str
    path: str
    """The op.yaml (or KernelBench file) this spec was read from."""
    reference: str
    """Absolute path of the reference Python file."""
    dtype: str
    shapes: tuple[Shape, ...]
    held_out_shapes: tuple[Shape, ...] = ()
    """Checked for correctness only; never shown to a proposer."""
    cpu_shapes: tuple[Shape, ...] = ()
    """Small shapes used instead of `shapes` on the CPU interpreter."""
    cpu_held_out_shapes: tuple[Shape, ...] = ()
    """Small held-out shapes used instead of `held_out_shapes` on the CPU interpreter."""
    description: str = ""
    category: str = ""
    tolerance: Tolerance | None = None
    """None: the per-dtype default of the dtype actually run."""
    roofline: Roofline | None = None
    mutates: tuple[str, ...] = ()
    backend: str = "triton"
    baselines: tuple[str, ...] = ("eager", "torch.compile")
    """Baselines timed beside a candidate: 'eager', 'torch.compile', 'production'."""
    production: Production | None = None
    """The operator's production baseline, when it names one."""
    library: str = ""
    """The library the reference is a single call into (cuBLAS GEMM, cuDNN convolution, ...), or
    "": then a kernel's bar is that library's time (the production baseline where named, else
    eager), not torch.compile's."""
    kernelbench: bool = False
    """The reference is a KernelBench problem (get_inputs / get_init_inputs, one shape)."""
    form: Form = "op.yaml"
    """How the reference is called: 'op.yaml' (make_inputs, init_kwargs), 'kernelbench'
    (get_inputs, get_init_inputs) or 'atrex' (input.py's _make_inputs, per-shape init_kwargs)."""
    inputs: str = ""
    """Absolute path of the input generator when it is not the reference file (Atrex input.py)."""
    input_dtypes: dict[str, str] = field(default_factory=dict)
    """Forward input name -> dtype its generator makes it in (Atrex metadata); such inputs are not
    cast to the operator's dtype. Never shown to a proposer."""
    importance: float | None = None
    """The operator's weight within a suite (Atrex `importance_score`). Never shown to a proposer."""
    shape_work: dict[str, ShapeWork] = field(default_factory=dict)
    """Shape id -> work given as numbers (Atrex roofline.json), used for scoring instead of
    `roofline` at that shape. Never shown to a proposer."""

    def __post_init__(self) -> None:
        if self.kernelbench and self.form == "op.yaml":
            object.__setattr__(self, "form", "kernelbench")

    def run_shapes(self, interpreter: bool) -> tuple[tuple[Shape, ...], tuple[Shape, ...]]:
        """(visible, held-out) shapes to run: the cpu_ lists on the interpreter when given."""
        if interpreter and self.cpu_shapes:
            return self.cpu_shapes, self.cpu_held_out_shapes
        return self.shapes, self.held_out_shapes

    def tolerance_for(self, dtype: str) -> Tolerance:
        if self.tolerance is not None:
            return self.tolerance
        atol, rtol = DEFAULT_TOLERANCE.get(dtype, (1e-4, 1e-4))
        return Tolerance(atol, rtol)

    def shape(self, shape_id: str) -> Shape:
        every = self.shapes + self.held_out_shapes + self.cpu_shapes + self.cpu_held_out_shapes
        for s in every:
            if s.id == shape_id:
                return s
        known = ", ".join(s.id for s in every)
        raise KeyError(f"no shape {shape_id!r} in {self.path} (known: {known})")

    def roofline_for(self, shape_id: str) -> Roofline | None:
        """The roofline to score this shape with: its own figures (shape_work) when given, else
        the spec's expressions."""
        work = self.shape_work.get(shape_id)
        if work is None:
            return self.roofline
        return Roofline(flops={dt: _number_text(n) for dt, n in work.flops.items()},
                        bytes=_number_text(work.bytes))

    def public_view(self) -> dict[str, Any]:
        """What a proposer may see: everything but the held-out shapes and the scoring-only
        figures (importance, per-shape work, declared input dtypes)."""
        data = self.to_dict()
        for key in ("held_out_shapes", "cpu_held_out_shapes", "shape_work", "importance", "input_dtypes"):
            data.pop(key)
        return data

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "OpSpec":
        data = dict(data)
        for key in ("shapes", "held_out_shapes", "cpu_shapes", "cpu_held_out_shapes"):
            data[key] = tuple(Shape(**s) for s in data.get(key, ()))
        if data.get("tolerance"):
            tol = dict(data["tolerance"])
            tol["outputs"] = {k: tuple(v) for k, v in (tol.get("outputs") or {}).items()}
            data["tolerance"] = Tolerance(**tol)
        if data.get("roofline"):
            data["roofline"] = Roofline(**data["roofline"])
        data["mutates"] = tuple(data.get("mutates", ()))
        data["baselines"] = tuple(data.get("baselines", ()))
        if data.get("production"):
            prod = dict(data["production"])
            prod["requires"] = tuple(prod.get("requires", ()))
            data["production"] = Production(**prod)
        data["shape_work"] = {k: ShapeWork(**w) for k, w in (data.get("shape_work") or {}).items()}
        return cls(**data)


def _number_text(value: float) -> str:
    """A number as an expression: integers without a trailing '.0'."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))
