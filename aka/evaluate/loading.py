"""Loading the reference and the candidate inside the worker; building models and inputs."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterator

import torch

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


class Operator:
    """The reference side of an operator: its Model and input generator, on one device/dtype."""

    def __init__(self, spec: dict[str, Any], device: str, dtype: str):
        self.spec, self.device, self.dtype_name = spec, torch.device(device), dtype
        self.dtype = TORCH_DTYPES[dtype]
        self.module = load_module(spec["reference"], "reference")
        self.model_cls = self.module.Model
        self.kernelbench = bool(spec.get("kernelbench"))
        params = list(inspect.signature(self.model_cls.forward).parameters)
        self.arg_names = [p for p in params if p != "self"]

    def init_args(self, params: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        if self.kernelbench:
            return list(self.module.get_init_inputs()), {}
        fn = getattr(self.module, "init_kwargs", None)
        return [], dict(fn(**params)) if fn else {}

    def build(self, params: dict[str, Any], seed: int) -> torch.nn.Module:
        torch.manual_seed(seed)
        args, kwargs = self.init_args(params)
        return self.place_model(self.model_cls(*args, **kwargs))

    def place_model(self, model: torch.nn.Module) -> torch.nn.Module:
        """On the device; floating parameters in the operator's dtype (integer ops keep theirs)."""
        model = model.to(device=self.device)
        if self.dtype.is_floating_point:
            model = model.to(dtype=self.dtype)
        return model.eval()

    def make_inputs(self, params: dict[str, Any], seed: int) -> Inputs:
        torch.manual_seed(seed)
        if self.kernelbench:
            raw = [self._place(v) for v in self.module.get_inputs()]
        else:
            with torch.device(self.device):
                raw = self.module.make_inputs(dtype=self.dtype, device=self.device, **params)
        if isinstance(raw, dict):
            return Inputs(list(raw), {k: self._place(v) for k, v in raw.items()}, keyword=True)
        raw = list(raw)
        names = self.arg_names[: len(raw)] + [f"arg{i}" for i in range(len(self.arg_names), len(raw))]
        return Inputs(names, {n: self._place(v) for n, v in zip(names, raw)}, keyword=False)

    def _place(self, v: Any) -> Any:
        if not isinstance(v, torch.Tensor):
            return v
        v = v.to(self.device)
        if self.kernelbench and v.is_floating_point():
            v = v.to(self.dtype)
        return v


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
