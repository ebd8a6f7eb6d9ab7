"""Loading the reference and the candidate inside the worker; building models and inputs."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import os
import sys
import traceback
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterator

import torch
from torch.overrides import TorchFunctionMode

TORCH_DTYPES = {
    "bfloat16": torch.bfloat16, "float16": torch.float16, "float32": torch.float32,
    "float64": torch.float64, "int8": torch.int8, "int32": torch.int32, "int64": torch.int64,
    "float8_e4m3fn": getattr(torch, "float8_e4m3fn", None),
    "float8_e5m2": getattr(torch, "float8_e5m2", None),
}


def load_module(path: str, tag: str) -> ModuleType:
    """Import a Python file under a unique module name (the file is executed)."""
    name = f"aka_{tag}_{hashlib.sha1(path.encode()).hexdigest()[:10]}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Inputs:
    """Forward inputs by name, with how to call: positional names first, then keywords."""

    names: list[str]
    values: dict[str, Any]
    keyword: bool

    def call(self, model: Callable) -> Any:
        if self.keyword:
            return model(**self.values)
        return model(*(self.values[n] for n in self.names))

    def tensors(self) -> list[tuple[str, torch.Tensor]]:
        return [(n, v) for n, v in self.values.items() if isinstance(v, torch.Tensor)]

    def clone(self) -> "Inputs":
        return Inputs(list(self.names), {n: _clone(v) for n, v in self.values.items()}, self.keyword)


def _clone(v: Any) -> Any:
    return v.detach().clone() if isinstance(v, torch.Tensor) else v


def timed_calls(model: Callable, sets: list[Inputs]) -> list[Callable[[], Any]]:
    """One no-grad call of `model` per input set, for timing: the same buffers, called again and
    again. Each call first moves its inputs' version counters on (no data is touched, no device work
    is queued), so a cache keyed by buffer and version, which passes the refill check (refilled
    buffers have a new version), recomputes on every timed call instead of returning its kept result."""
    def make(inp: Inputs):
        tensors = [t for _, t in inp.tensors()]

        def call():
            for t in tensors:
                _bump(t)
            with torch.no_grad():
                return inp.call(model)
        return call
    return [make(s) for s in sets]


def _bump(t: torch.Tensor) -> None:
    try:
        torch.autograd.graph.increment_version(t)
    except RuntimeError:    # an inference tensor keeps no version counter: nothing to key on either
        pass


class OperatorFault(Exception):
    """Reference code raised: the operator's reference, input generator or constructor arguments
    are at fault (the user's input, exit 2), never a candidate.

    `file` is the reference (or Atrex input.py) file, `line` the deepest traceback line inside it
    (None when the error did not pass through it), `stage` one of STAGES."""

    STAGES = ("load", "init", "inputs", "forward")

    def __init__(self, message: str, file: str, line: int | None = None, stage: str = "load"):
        self.message, self.file, self.line, self.stage = message, file, line, stage
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: the operator's reference failed ({stage}): {message}")

    def __reduce__(self) -> tuple:
        return type(self), (self.message, self.file, self.line, self.stage)

    def to_dict(self) -> dict[str, Any]:
        return {"message": self.message, "file": self.file, "line": self.line, "stage": self.stage}


@contextlib.contextmanager
def blame(stage: str, file: str, what: str) -> Iterator[None]:
    """Re-raise any exception from the block as an OperatorFault naming FILE and its line."""
    try:
        yield
    except OperatorFault:
        raise
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - reference code: whatever it raises is the operator's
        raise OperatorFault(f"{what} raised {type(exc).__name__}: {exc}", file, _line_in(exc, file), stage) from exc


def _line_in(exc: BaseException, file: str) -> int | None:
    """The deepest traceback line inside FILE (or a SyntaxError's own line there)."""
    target = os.path.realpath(file)
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(frame.filename) == target:
            line = frame.lineno
    if line is None and isinstance(exc, SyntaxError) and exc.filename and os.path.realpath(exc.filename) == target:
        line = exc.lineno
    return line


class DeviceRemap(TorchFunctionMode):
    """Reference code written for a GPU runs on DEVICE: a 'cuda' / 'cuda:N' / torch.device('cuda')
    `device` argument, `Tensor.cuda()` and `Tensor.to('cuda')` all go to DEVICE instead."""

    def __init__(self, device: torch.device):
        super().__init__()
        self.device = device

    def __torch_function__(self, func: Callable, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        kwargs = dict(kwargs or {})
        if func is torch.Tensor.cuda:
            return args[0].to(self.device)
        if "device" in kwargs:
            kwargs["device"] = self._map(kwargs["device"], index_ok=True)
        if func is torch.Tensor.to:
            args = tuple(self._map(a) for a in args)
        return func(*args, **kwargs)

    def _map(self, value: Any, index_ok: bool = False) -> Any:
        if isinstance(value, str) and (value == "cuda" or value.startswith("cuda:")):
            return self.device
        if isinstance(value, torch.device) and value.type == "cuda":
            return self.device
        if index_ok and isinstance(value, int) and not isinstance(value, bool):
            return self.device
        return value


class Operator:
    """The reference side of an operator: its Model and input generator, on one device/dtype.

    Every exception raised by reference code comes out as an OperatorFault."""

    def __init__(self, spec: dict[str, Any], device: str, dtype: str):
        self.spec, self.device, self.dtype_name = spec, torch.device(device), dtype
        self.dtype = TORCH_DTYPES[dtype]
        self.declared = TORCH_DTYPES.get(spec.get("dtype", dtype)) or self.dtype
        self.form = spec.get("form") or ("kernelbench" if spec.get("kernelbench") else "op.yaml")
        self.kernelbench = self.form == "kernelbench"
        self.reference = spec["reference"]
        self.inputs_file = spec.get("inputs") or self.reference
        self.input_dtypes = dict(spec.get("input_dtypes") or {})
        with blame("load", self.reference, "importing the reference"), self.on_device():
            self.module = load_module(self.reference, "reference")
            self.model_cls = self.module.Model
            params = list(inspect.signature(self.model_cls.forward).parameters)
        self.arg_names = [p for p in params if p != "self"]
        self.inputs_module = self.module
        self.production_cls: Any = None
        """The production module's class, imported on first use (never in a candidate's process)."""
        if self.form == "atrex":
            with blame("load", self.inputs_file, "importing the input generator"), self.on_device():
                self.inputs_module = load_module(self.inputs_file, "inputs")

    def on_device(self) -> contextlib.AbstractContextManager:
        """Hard-coded CUDA devices in reference code map to the run device (nothing on a GPU)."""
        return contextlib.nullcontext() if self.device.type == "cuda" else DeviceRemap(self.device)

    def constructing(self) -> contextlib.AbstractContextManager:
        """Where a Model's constructor puts the tensors it makes: straight on the GPU, so a large
        random weight (an embedding table of 128256 x 4096) is drawn there in milliseconds instead
        of on the host in seconds and then copied; elsewhere as the code says."""
        return torch.device(self.device) if self.device.type == "cuda" else contextlib.nullcontext()

    def init_args(self, params: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if self.form == "atrex":
            return [], self._shape_init_kwargs(params)
        if self.kernelbench:
            with blame("init", self.reference, "get_init_inputs()"), self.on_device():
                return list(self.module.get_init_inputs()), {}
        fn = getattr(self.module, "init_kwargs", None)
        if fn is None:
            return [], {}
        with blame("init", self.reference, "init_kwargs(...)"), self.on_device():
            return [], dict(fn(**_accepted(fn, params)))

    def _shape_init_kwargs(self, params: dict[str, Any]) -> dict[str, Any]:
        """The init_kwargs of the shape whose input_kwargs are PARAMS (shapes.json)."""
        for key in ("shapes", "held_out_shapes", "cpu_shapes", "cpu_held_out_shapes"):
            for shape in self.spec.get(key, ()):
                if shape["params"] == params:
                    return dict(shape.get("init_kwargs") or {})
        raise ValueError(f"no shape of {self.spec.get('name')} has input_kwargs {params}")

    def build(self, params: dict[str, Any], seed: int) -> torch.nn.Module:
        torch.manual_seed(seed)
        args, kwargs = self.init_args(params)
        with blame("init", self.reference, "Model(...)"), self.on_device(), self.constructing():
            model = self.model_cls(*args, **kwargs)
        model = self.place_model(model)
        if self.device.type != "cuda":  # the reference's forward may hard-code CUDA too
            _remap_forward(model, self.device)
        return model

    def build_production(self, params: dict[str, Any], seed: int, reference: torch.nn.Module) -> torch.nn.Module:
        """The operator's production module (op.yaml `production:`) for one shape, built like a
        candidate: Model's constructor arguments, then the reference's weights loaded strictly.
        What its code raises is an OperatorFault naming the production file."""
        file = self.spec["production"]["file"]
        if self.production_cls is None:
            with blame("load", file, "importing the production module"), self.on_device():
                self.production_cls = load_module(file, "production").Production
        args, kwargs = self.init_args(params)
        torch.manual_seed(seed)
        with blame("init", file, "Production(...)"), self.on_device(), self.constructing():
            model = self.place_model(self.production_cls(*args, **kwargs))
            model.load_state_dict(reference.state_dict(), strict=True)
        if self.device.type != "cuda":
            _remap_forward(model, self.device)
        return model

    def place_model(self, model: torch.nn.Module) -> torch.nn.Module:
        """On the device; floating parameters in the operator's dtype (integer ops keep theirs;
        with declared input dtypes, only those in the declared dtype follow a run-dtype change)."""
        model = model.to(device=self.device)
        if self.input_dtypes:
            return model._apply(self._retype).eval()
        if self.dtype.is_floating_point:
            model = model.to(dtype=self.dtype)
        return model.eval()

    def reference_forward(self, model: Callable, inputs: Inputs) -> Any:
        """The reference's output for INPUTS (no grad); what its forward raises is an OperatorFault."""
        with torch.no_grad(), blame("forward", self.reference, "Model.forward"), self.on_device():
            return inputs.call(model)

    def make_inputs(self, params: dict[str, Any], seed: int) -> Inputs:
        """The forward's inputs for one shape, seeded, on the device; see docs/op-spec.md for
        which tensors are cast to the operator's dtype."""
        torch.manual_seed(seed)
        raw, typed = self._generate(params)
        if isinstance(raw, dict):
            self._check_names(list(raw))
            return Inputs(list(raw), {k: self._place(k, v, typed) for k, v in raw.items()}, keyword=True)
        names = self.arg_names[: len(raw)] + [f"arg{i}" for i in range(len(self.arg_names), len(raw))]
        return Inputs(names, {n: self._place(n, v, typed) for n, v in zip(names, raw)}, keyword=False)

    def _generator(self) -> str:
        return {"atrex": "_make_inputs", "kernelbench": "get_inputs"}.get(self.form, "make_inputs")

    def _generate(self, params: dict[str, Any]) -> tuple[dict | list, bool]:
        """The generator's output (a dict, or a list), and whether it names `dtype` (then it chose
        its tensors' dtypes; otherwise floating tensors are cast to the operator's)."""
        name = self._generator()
        with blame("inputs", self.inputs_file, f"{name}(...)"), self.on_device():
            fn = getattr(self.inputs_module, name)
            if self.form == "atrex":
                kwargs, typed = params, False
            elif self.kernelbench:
                kwargs, typed = {}, False
            else:  # dtype and device go to a signature that takes them (a **kwargs one too)
                kwargs = _accepted(fn, {**params, "dtype": self.dtype, "device": self.device})
                typed = "dtype" in _named(fn)
            # KernelBench problems allocate without a device: made on the run device directly
            # (on the CPU, a published 6.4 GB input takes seconds per call to generate and move)
            on_device = "device" in _named(fn) or (self.kernelbench and self.device.type != "cpu")
            with torch.device(self.device) if on_device else contextlib.nullcontext():
                raw = fn(**kwargs)
            if isinstance(raw, (dict, list)):
                return raw, typed
            if isinstance(raw, (str, bytes, torch.Tensor)) or not hasattr(raw, "__iter__"):
                raise OperatorFault(f"{name} returned a {type(raw).__name__}; expected a list, a tuple or a dict",
                                    self.inputs_file, None, "inputs")
            return list(raw), typed

    def _check_names(self, names: list[str]) -> None:
        """Keyword inputs name parameters of Model.forward (unless it takes **kwargs)."""
        params = inspect.signature(self.model_cls.forward).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            return
        unknown = [n for n in names if n not in self.arg_names]
        if unknown:
            raise OperatorFault(f"{self._generator()} returned input(s) {unknown} that Model.forward does "
                                f"not take (it takes: {', '.join(self.arg_names)})", self.inputs_file, None, "inputs")

    def _place(self, name: str, v: Any, typed: bool) -> Any:
        """On the device; a floating tensor the generator chose no dtype for in the operator's."""
        if not isinstance(v, torch.Tensor):
            return v
        v = v.to(self.device)
        if name in self.input_dtypes:
            return self._retype(v)
        if not typed and v.is_floating_point():
            v = v.to(self.dtype)
        return v

    def _retype(self, t: torch.Tensor) -> torch.Tensor:
        """The declared dtype becomes the run dtype (e.g. bfloat16 run in float32 on the
        interpreter); every other dtype stays."""
        return t.to(self.dtype) if t.dtype == self.declared and self.declared != self.dtype else t


def compiled_reference(model: torch.nn.Module, **options: Any) -> torch.nn.Module:
    """torch.compile of the reference for the one shape it is about to run at, specialized to it as
    a user compiling for that shape would get. Every shape's module has the same class, and so the
    same `forward` code object, whose compiled entries Dynamo keeps across instances. Plain
    torch.compile gives the second shape a process compiles a graph with symbolic sizes (automatic
    dynamic shapes); `dynamic=False` without the reset gives a shape past Dynamo's recompile limit
    eager code. Either way the baseline would depend on the shapes the process timed before.
    OPTIONS go to torch.compile (tests pass a backend)."""
    torch._dynamo.reset()
    return torch.compile(model, dynamic=False, **options)


def _accepted(fn: Callable, kwargs: dict[str, Any]) -> dict[str, Any]:
    """The KWARGS FN's signature accepts by name (all of them for a **kwargs signature)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return kwargs
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return kwargs
    return {k: v for k, v in kwargs.items() if k in _named(fn)}


def _named(fn: Callable) -> set[str]:
    """Parameter names FN's signature spells out (passable by keyword)."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return set()
    return {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _remap_forward(model: torch.nn.Module, device: torch.device) -> None:
    """Every call of MODEL runs under DeviceRemap (hooks, so copies of the model keep it)."""
    mode = DeviceRemap(device)

    def enter(module: torch.nn.Module, args: tuple) -> None:
        mode.__enter__()

    def leave(module: torch.nn.Module, args: tuple, out: Any) -> None:
        mode.__exit__(None, None, None)

    model.register_forward_pre_hook(enter)
    model.register_forward_hook(leave, always_call=True)


def kernel_objects(module: ModuleType) -> dict[str, Any]:
    """The Triton kernels the candidate file itself defines (imported ones are not its own),
    by their launch name."""
    from triton.runtime.jit import KernelInterface

    found = {}
    scopes = [vars(module)] + [vars(c) for c in vars(module).values()
                               if isinstance(c, type) and c.__module__ == module.__name__]
    for scope in scopes:
        for attr, obj in scope.items():
            obj = getattr(obj, "__func__", obj)  # staticmethod / classmethod wrappers
            fn = _python_fn(obj) if isinstance(obj, KernelInterface) else None
            if fn is not None and fn.__module__ == module.__name__:
                found[fn.__name__] = obj
    return found


def _python_fn(obj: Any) -> Any:
    """The Python function under a JIT / autotune / heuristics wrapper chain."""
    seen = 0
    while obj is not None and seen < 8:
        fn = getattr(obj, "fn", None)
        if callable(fn) and not hasattr(fn, "fn") and hasattr(fn, "__name__"):
            return fn
        obj, seen = fn, seen + 1
    return None


@contextlib.contextmanager
def ghosted(kernels: dict[str, Any]) -> Iterator[None]:
    """Replace every candidate kernel's launch with a no-op for the duration."""
    for obj in kernels.values():
        obj.run = _noop
    try:
        yield
    finally:
        for obj in kernels.values():
            obj.__dict__.pop("run", None)


def _noop(*args: Any, **kwargs: Any) -> None:
    return None


@contextlib.contextmanager
def poisoned() -> Iterator[None]:
    """Fresh torch allocations come back NaN-filled (integers: max value) while inside."""
    import torch.utils.deterministic as det

    before = torch.are_deterministic_algorithms_enabled()
    fill = det.fill_uninitialized_memory
    torch.use_deterministic_algorithms(True, warn_only=True)
    det.fill_uninitialized_memory = True
    try:
        yield
    finally:
        det.fill_uninitialized_memory = fill
        torch.use_deterministic_algorithms(before)


def synchronize(device: torch.device) -> None:
    if device.type == "cuda":
        torch.cuda.synchronize(device)
