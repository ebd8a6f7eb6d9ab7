"""The files `aka export` writes, as templates filled with `str.format` (braces doubled)."""

OP_PY = '''"""torch.library custom op `{qualname}`: the kernel of aka session {session} behind the
reference's signature, with a fake (meta) implementation so torch.compile can trace through it.

    from {package} import Op                 # drop-in for the reference Model (same state dict)
    torch.ops.{namespace}.{opname}({call_args}, params, init)
"""

import inspect
import json

import torch

from . import kernel, reference

QUALNAME = "{qualname}"
ARG_NAMES = {arg_names!r}
"""The reference forward's arguments, in order."""
PARAM_NAMES = {param_names!r}
"""The reference's state-dict entries (parameters and buffers), in the order the op takes them."""
FORM = {form!r}

_models: dict = {{}}


def reference_init(params: dict) -> tuple[list, dict]:
    """(args, kwargs) that build the reference Model (and ModelNew) for one shape's parameters."""
    if FORM == "kernelbench":
        return list(reference.get_init_inputs()), {{}}
    fn = getattr(reference, "init_kwargs", None)
    return ([], dict(fn(**_accepted(fn, params)))) if fn else ([], {{}})


def reference_inputs(params: dict, dtype: torch.dtype, device) -> list:
    """Forward inputs of one shape: floating tensors cast to DTYPE, everything on DEVICE."""
    if FORM == "kernelbench":
        values = list(reference.get_inputs())
    else:
        fn = reference.make_inputs
        extra = {{"dtype": dtype, "device": device}}
        values = list(fn(**_accepted(fn, {{**params, **extra}})))
    return [v.to(device=device, dtype=dtype if v.is_floating_point() else v.dtype) if isinstance(v, torch.Tensor)
            else v for v in values]


def _accepted(fn, kwargs: dict) -> dict:
    sig = inspect.signature(fn)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return dict(kwargs)
    return {{k: v for k, v in kwargs.items() if k in sig.parameters}}


def _decode(init: str) -> tuple[list, dict]:
    data = json.loads(init)
    return list(data.get("args", [])), dict(data.get("kwargs", {{}}))


def _model(cls, init: str, device) -> torch.nn.Module:
    key = (cls, init, str(device))
    if key not in _models:
        args, kwargs = _decode(init)
        with torch.device("meta" if str(device) == "meta" else "cpu"):
            model = cls(*args, **kwargs)
        _models[key] = model if str(device) == "meta" else model.to(device)
    return _models[key]


def _fresh(out, inputs):
    """Outputs of a custom op may not alias its inputs: copy any that does."""
    ptrs = {{t.untyped_storage().data_ptr() for t in inputs if isinstance(t, torch.Tensor) and t.device.type != "meta"}}
    if isinstance(out, torch.Tensor):
        return out.clone() if out.device.type != "meta" and out.untyped_storage().data_ptr() in ptrs else out
    return type(out)(_fresh(o, inputs) for o in out)


def _device(values) -> torch.device:
    for v in values:
        if isinstance(v, torch.Tensor):
            return v.device
    return torch.device("cpu")


@torch.library.custom_op(QUALNAME, mutates_args=())
def {opname}({signature}, params: list[torch.Tensor], init: str) -> {returns}:
    args = [{call_args}]
    model = _model(kernel.ModelNew, init, _device(args))
    out = torch.func.functional_call(model, dict(zip(PARAM_NAMES, params)), tuple(args))
    return _fresh(out, args + list(params))


@{opname}.register_fake
def _{opname}_fake({call_args}, params, init):
    """Shapes and dtypes from the reference itself, run on fake tensors."""
    model = _model(reference.Model, init, "meta")
    out = torch.func.functional_call(model, dict(zip(PARAM_NAMES, params)), ({call_args},))
    return out


class Op(kernel.ModelNew):
    """Drop-in for the reference Model: same constructor, same state dict; forward calls {qualname}."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._aka_init = json.dumps({{"args": list(args), "kwargs": kwargs}})

    def forward(self, {call_args}):
        state = {{**dict(self.named_buffers()), **dict(self.named_parameters())}}
        return torch.ops.{namespace}.{opname}({call_args}, [state[n] for n in PARAM_NAMES], self._aka_init)
'''

INIT_PY = '''"""{op}: the winning kernel of aka session {session}, exported by `aka export`."""

from .op import Op, QUALNAME, reference_init, reference_inputs  # noqa: F401  (registers {qualname})
from .kernel import ModelNew  # noqa: F401
'''

TEST_PY = '''"""{package} against the reference on the operator's shapes (CPU: Triton's interpreter, float32)."""

import json
import os
import pathlib

import pytest
import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")      # before triton is imported

import {package} as pkg  # noqa: E402

DATA = json.loads((pathlib.Path(pkg.__file__).parent / "shapes.json").read_text())
CUDA = torch.cuda.is_available()
DEVICE = "cuda" if CUDA else "cpu"
DTYPE = getattr(torch, DATA["dtype"]) if CUDA else torch.float32
SHAPES = DATA["shapes"] if CUDA or not DATA["cpu_shapes"] else DATA["cpu_shapes"]
ATOL, RTOL = DATA["tolerance"]["float32" if not CUDA else DATA["dtype"]]


def build(params):
    torch.manual_seed(0)
    args, kwargs = pkg.reference_init(params)
    ref = pkg.op.reference.Model(*args, **kwargs).to(DEVICE)
    ref = ref.to(DTYPE) if DTYPE.is_floating_point else ref
    mine = pkg.Op(*args, **kwargs).to(DEVICE)
    mine = mine.to(DTYPE) if DTYPE.is_floating_point else mine
    mine.load_state_dict(ref.state_dict())
    return ref.eval(), mine.eval(), pkg.reference_inputs(params, DTYPE, DEVICE)


def test_op_is_registered():
    assert torch.ops.{namespace}.{opname} is not None


@pytest.mark.parametrize("shape", SHAPES, ids=[s["id"] for s in SHAPES])
def test_matches_reference(shape):
    ref, mine, inputs = build(shape["params"])
    with torch.no_grad():
        torch.testing.assert_close(mine(*inputs), ref(*inputs), atol=ATOL, rtol=RTOL)


def test_fake_implementation_traces():
    from torch._subclasses.fake_tensor import FakeTensorMode

    ref, mine, inputs = build(SHAPES[0]["params"])
    expected = ref(*inputs)
    with FakeTensorMode(allow_non_fake_inputs=True) as mode:
        fake_inputs = [mode.from_tensor(v) if isinstance(v, torch.Tensor) else v for v in inputs]
        out = mine(*fake_inputs)
    assert out.shape == expected.shape and out.dtype == expected.dtype


def test_under_torch_compile():
    ref, mine, inputs = build(SHAPES[0]["params"])
    backend = os.environ.get("AKA_EXPORT_COMPILE_BACKEND", "inductor")
    compiled = torch.compile(mine, fullgraph=True, backend=backend)
    with torch.no_grad():
        torch.testing.assert_close(compiled(*inputs), ref(*inputs), atol=ATOL, rtol=RTOL)
'''
