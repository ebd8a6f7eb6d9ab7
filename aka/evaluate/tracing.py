"""Runtime review (worker side): torch compute the candidate runs outside its own kernels.

The static review cannot tell a tensor `*` from an integer `*`; at run time a TorchFunctionMode
sees every torch call that forward makes. Calls made while one of the candidate's kernels is being
launched are the launcher's own business (the interpreter moves data with torch) and are not
counted. What counts is the same vocabulary as the static rules: arithmetic operators on tensors,
tensor-method math and torch functions that compute; allocation, views, metadata and casts do not.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import Any, Iterator

import torch
from torch.overrides import TorchFunctionMode

from aka.evaluate.review import TENSOR_MATH, TORCH_ALLOWED

ARITHMETIC = {
    f"__{op}__" for op in (
        "add", "radd", "iadd", "sub", "rsub", "isub", "mul", "rmul", "imul", "truediv", "rtruediv",
        "itruediv", "floordiv", "rfloordiv", "ifloordiv", "mod", "rmod", "pow", "rpow", "ipow",
        "matmul", "rmatmul", "neg", "abs", "and", "rand", "or", "ror", "xor", "rxor", "invert",
        "lshift", "rshift", "lt", "le", "gt", "ge", "setitem",
    )
}


def _compute_name(func: Any, args: tuple) -> str | None:
    """'Tensor.__mul__' / 'torch.rsqrt' when the call computes, else None."""
    name = getattr(func, "__name__", "")
    module = getattr(func, "__module__", "") or ""
    owner = "Tensor" if module.startswith("torch._tensor") or "TensorBase" in repr(func) else "torch"
    if name in ARITHMETIC or name in TENSOR_MATH:
        return f"{owner}.{name}"
    if name == "__getitem__" and any(isinstance(a, torch.Tensor) for a in _flat(args[1:])):
        return "Tensor.__getitem__ (tensor index: a gather)"
    if owner == "torch" and module.startswith("torch") and not name.startswith("_"):
        short = module.replace("torch.nn.functional", "nn.functional").replace("torch.", "")
        full = name if module in ("torch", "torch.functional") else f"{short}.{name}"
        if full not in TORCH_ALLOWED and module.startswith(("torch.nn.functional", "torch.linalg",
                                                             "torch.special", "torch.fft")):
            return f"torch.{full}"
        if module in ("torch", "torch.functional") and name not in TORCH_ALLOWED:
            return f"torch.{name}"
    return None


def _flat(items: Any) -> list:
    out = []
    for item in items:
        if isinstance(item, (tuple, list)):
            out += _flat(item)
        else:
            out.append(item)
    return out


class ComputeTracer(TorchFunctionMode):
    """Counts compute calls made outside the candidate's kernel launches."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: Counter[str] = Counter()
        self.launching = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if not self.launching:
            name = _compute_name(func, args)
            if name:
                self.calls[name] += 1
        return func(*args, **(kwargs or {}))

    def summary(self) -> str:
        return ", ".join(f"{n} ×{c}" for n, c in self.calls.most_common(6))


@contextlib.contextmanager
def traced(kernels: dict[str, Any]) -> Iterator[ComputeTracer]:
    """Trace torch compute; launches of the candidate's kernels are excluded."""
    tracer = ComputeTracer()
    originals = {}
    for key, obj in kernels.items():
        originals[key] = obj.run

        def launch(*args, _run=obj.run, **kwargs):
            tracer.launching += 1
            try:
                return _run(*args, **kwargs)
            finally:
                tracer.launching -= 1

        obj.run = launch
    try:
        with tracer:
            yield tracer
    finally:
        for obj in kernels.values():
            obj.__dict__.pop("run", None)
