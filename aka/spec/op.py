"""The operator spec: what an op.yaml (or a KernelBench problem file) declares."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

Phase = Literal["prefill", "decode", "any"]

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
    kernelbench: bool = False
    """The reference is a KernelBench problem (get_inputs / get_init_inputs, one shape)."""

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

    def public_view(self) -> dict[str, Any]:
        """What a proposer may see: everything but the held-out shapes."""
        data = self.to_dict()
        data.pop("held_out_shapes")
        data.pop("cpu_held_out_shapes")
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
        return cls(**data)
