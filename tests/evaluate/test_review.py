"""Static review: allowed code passes, each rule fires on its pattern with file and line."""

import pytest

from aka.evaluate.review import review

HEADER = "import torch\nimport triton\nimport triton.language as tl\n"

HONEST = HEADER + '''
@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, tl.exp(x) * tl.sum(x, axis=0), mask=offs < n)


class ModelNew(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(hidden))

    def forward(self, x):
        x = x.contiguous().view(-1, x.shape[-1])
        y = torch.empty_like(x)
        out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
        n = x.numel()
        k[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=triton.next_power_of_2(x.stride(0)))
        return y.to(torch.bfloat16).reshape(x.shape)
'''


def rules(src: str) -> list[str]:
    return [r.rule for r in review(src, "cand.py")]


def test_honest_code_passes():
    assert review(HONEST, "cand.py") == []


@pytest.mark.parametrize("snippet, rule", [
    ("y = torch.softmax(x, -1)", "torch-compute"),
    ("y = torch.nn.functional.silu(x)", "torch-compute"),
    ("y = torch.ops.aten.mul(x, x)", "native-code"),
    ("y = x.exp()", "tensor-method-math"),
    ("y = x.sum(-1)", "tensor-method-math"),
    ("y = x.clone()", "tensor-method-math"),
    ("x.mul_(2)", "tensor-method-math"),
    ("y = x @ x", "matmul-operator"),
    ("f = torch.compile(lambda t: t)", "torch-compile"),
    ("s = torch.cuda.Stream()", "stream"),
    ("e = torch.cuda.Event(enable_timing=True)", "stream"),
    ("torch.cuda.synchronize = lambda: None", "module-patching"),
    ("setattr(torch, 'empty', None)", "module-patching"),
    ("g = globals()", "introspection"),
    ("f = getattr(torch, name)", "introspection"),
    ("d = x.__dict__", "introspection"),
    ("fh = open('/tmp/x')", "io"),
    ("lin = torch.nn.Linear(4, 4)", "torch-compute"),
    ("w = torch.load('w.pt')", "io"),
])
def test_each_rule_fires_with_its_line(snippet, rule):
    src = HEADER + "def forward(x, name):\n    " + snippet + "\n    return x\nclass ModelNew: pass\n"
    found = review(src, "cand.py")
    assert rule in [r.rule for r in found], found
    hit = next(r for r in found if r.rule == rule)
    assert hit.file == "cand.py" and hit.line == 5


@pytest.mark.parametrize("module, rule", [
    ("inspect", "introspection"), ("gc", "introspection"), ("sys", "introspection"),
    ("builtins", "introspection"), ("importlib", "introspection"), ("importlib.util", "introspection"),
    ("threading", "concurrency"), ("multiprocessing", "concurrency"), ("asyncio", "concurrency"),
    ("_thread", "concurrency"),
    ("ctypes", "native-code"), ("socket", "io"), ("subprocess", "io"), ("os", "io"), ("os.path", "io"),
    ("posix", "io"), ("nt", "io"), ("_posixsubprocess", "io"),
    ("numpy", "host-compute"),
    ("re", "import-not-allowed"), ("random", "import-not-allowed"), ("pytest", "import-not-allowed"),
    ("reference_kernels.rmsnorm.one_row_registers", "import-not-allowed"),
])
def test_imports_outside_the_allowlist_are_refused_with_module_and_line(module, rule):
    for src in (f"import torch\nimport {module}\nclass ModelNew: pass\n",
                f"import torch\nfrom {module} import environ\nclass ModelNew: pass\n",
                f"import torch\nimport {module} as m\nclass ModelNew: pass\n"):
        found = review(src, "cand.py")
        assert [(r.rule, r.line) for r in found] == [(rule, 2)], found
        assert f"`{module}" in found[0].message


def test_from_posix_import_environ_is_refused():
    found = review("from posix import environ\nclass ModelNew: pass\n", "cand.py")
    assert [(r.rule, r.line) for r in found] == [("io", 1)]
    assert "posix" in found[0].message


def test_dunder_import_is_refused_called_or_not():
    assert rules("m = __import__('os')\nclass ModelNew: pass\n") == ["introspection"]
    assert rules("imp = __import__\nclass ModelNew: pass\n") == ["introspection"]
    assert rules("f = eval\nclass ModelNew: pass\n") == ["introspection"]
    assert rules("b = __builtins__['open']\nclass ModelNew: pass\n") == ["introspection"]


def test_relative_imports_are_refused():
    assert rules("from . import helper\nclass ModelNew: pass\n") == ["import-not-allowed"]


ALLOWED = """from __future__ import annotations
import abc
import collections
import collections.abc
import dataclasses
import enum
import functools
import itertools
import math
import numbers
import operator
import typing
import warnings
from typing import Optional
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import Tensor, nn as nn2
import triton
import triton.language as tl
from triton.language.extra import libdevice
from triton.tools.tensor_descriptor import TensorDescriptor
from triton import Config, autotune, cdiv, heuristics, jit, next_power_of_2


class ModelNew(torch.nn.Module):
    pass
"""


def test_the_allowed_imports_pass():
    assert review(ALLOWED, "cand.py") == []


@pytest.mark.parametrize("snippet, rule", [
    ("import triton.testing", "import-not-allowed"),
    ("from triton.testing import do_bench", "import-not-allowed"),
    ("from triton._C import libtriton", "native-code"),
    ("from triton import compile", "native-code"),
    ("import triton.compiler", "native-code"),
    ("import triton.runtime.build", "native-code"),
    ("import torch.utils.cpp_extension", "native-code"),
    ("import torch._C as C", "native-code"),
    ("import torch.multiprocessing as mp", "concurrency"),
    ("from torch import distributed", "concurrency"),
])
def test_native_and_harness_parts_of_torch_and_triton_are_refused(snippet, rule):
    assert rules(f"{snippet}\nclass ModelNew: pass\n") == [rule]


@pytest.mark.parametrize("snippet, rule", [
    ("typing.sys.modules['os'].system('id')", "introspection"),
    ("collections._sys.modules", "introspection"),
    ("torch.os.system('id')", "io"),
    ("getattr(typing, 'sys')", "introspection"),
    ("operator.attrgetter('__globals__')(forward)", "introspection"),
    ("typing.get_type_hints(forward)", "introspection"),
])
def test_refused_modules_reached_through_allowed_ones(snippet, rule):
    src = "import collections\nimport operator\nimport typing\nimport torch\n"
    src += f"def forward(x):\n    {snippet}\n    return x\nclass ModelNew: pass\n"
    found = review(src, "cand.py")
    assert (rule, 6) in [(r.rule, r.line) for r in found], found


@pytest.mark.parametrize("snippet, rule", [
    ("enum.bltns.exec('import sys')", "introspection"),           # enum keeps builtins as `bltns`
    ("typing.types.FunctionType", "introspection"),
    ("dataclasses.types.CodeType", "introspection"),
    ("dataclasses._create_fn('f', [], ['return 1'])", "introspection"),
    ("functools.reduce(getattr, ['s' + 'ys'], warnings)", "introspection"),
    ("itertools.starmap(setattr, [(warnings, 'x', 1)])", "introspection"),
    ("g = getattr", "introspection"),
    ("operator.attrgetter('s' + 'ys')(warnings)", "introspection"),
    ("operator.methodcaller('mod' + 'ules')", "introspection"),
    ("enum.global_enum(enum.Enum('E', 'perf_counter', module='aka.evaluate.timing'))", "module-patching"),
    ("enum.Enum._convert_('E', 'aka.evaluate.runner', lambda n: n == 'sys')", "module-patching"),
    ("Mine._convert_('E', 'aka.evaluate.runner', lambda n: True)", "module-patching"),
])
def test_stdlib_gadgets_that_reach_code_or_other_modules_are_refused(snippet, rule):
    """Ways round the import allowlist through the allowed standard library (session 49): each
    passed the review before, and `enum.bltns.exec` ran a forger (tests/evaluate/test_forgery.py)."""
    src = ("import collections, dataclasses, enum, functools, itertools, operator, typing, warnings\nimport torch\n"
           "class Mine(enum.Enum):\n    A = 1\n")
    src += f"def forward(x):\n    {snippet}\n    return x\nclass ModelNew: pass\n"
    found = review(src, "cand.py")
    assert (rule, 6) in [(r.rule, r.line) for r in found], found


@pytest.mark.parametrize("snippet", [
    "getattr(torch, 'float32')", "hasattr(x, 'shape')", "functools.lru_cache(maxsize=None)", "typing.Optional[int]",
    "collections.OrderedDict()", "operator.mul(2, 3)", "enum.Enum('E', 'a b')", "dataclasses.field(default=0)",
    "itertools.product([1], [2])", "warnings.warn('slow path')",
])
def test_ordinary_uses_of_the_allowed_stdlib_still_pass(snippet):
    src = "import collections, dataclasses, enum, functools, itertools, operator, typing, warnings\nimport torch\n"
    src += f"def forward(x):\n    {snippet}\n    return x\nclass ModelNew: pass\n"
    assert review(src, "cand.py") == []


@pytest.mark.parametrize("snippet", [
    "m = torch.utils\n    m.data.dataloader.os.system('id')",   # the chain on `m` was never resolved
    "w = warnings\n    w.sys.modules",
    "run(torch)",
    "self_modules = [triton.language]",
    "return typing",
    "F = torch.nn.functional\n    F.torch.utils.data.dataloader.os",   # `import ... as F` is the way
])
def test_a_module_used_as_a_value_is_refused(snippet):
    """Attribute paths are followed only from an import; a module bound to a name, passed or returned
    would carry them out of the review's sight (session 49)."""
    src = "import torch, triton, typing, warnings\nimport triton.language\n"
    src += f"def forward(x):\n    {snippet}\n    return x\nclass ModelNew: pass\n"
    found = review(src, "cand.py")
    assert ("introspection", 4) in [(r.rule, r.line) for r in found], found


def test_aliases_are_resolved():
    src = "import torch.nn.functional as F\nfrom torch import rsqrt\nclass ModelNew:\n    def f(self, x):\n        return F.gelu(rsqrt(x))\n"
    found = review(src, "c.py")
    assert {(r.rule, r.line) for r in found} >= {("torch-compute", 2), ("torch-compute", 5)}


def test_kernel_bodies_are_free_of_the_compute_rules_but_helpers_are_not():
    src = HEADER + ("@triton.jit\ndef k(x):\n    y = x.sum()\n    z = x @ y\n    w = torch.exp(z)\n"
                    "\ndef helper(x):\n    return x.sum()\nclass ModelNew: pass\n")
    found = review(src, "c.py")
    assert [(r.rule, r.line) for r in found] == [("tensor-method-math", 11)]


@pytest.mark.parametrize("decorator", ["@triton.jit", "@triton.jit(do_not_specialize=['n'])",
                                       "@triton.autotune(configs=[], key=['n'])\n@triton.jit",
                                       "@triton.heuristics({'B': lambda a: 4})\n@triton.jit"])
@pytest.mark.parametrize("snippet, rule", [
    ("open('/tmp/pwned', 'w').write('x')", "io"),
    ("exec('x = 1')", "introspection"),
    ("eval('1')", "introspection"),
    ("m = __import__('os')", "introspection"),
    ("f = getattr(x, '__globals__')", "introspection"),
    ("g = globals()", "introspection"),
    ("g = x.__globals__", "introspection"),
    ("b = x.__builtins__", "introspection"),
    ("c = ().__class__.__base__.__subclasses__()", "introspection"),
    ("import os", "io"),
    ("from ctypes import CDLL", "native-code"),
    ("global state", "global-state"),
    ("torch.cuda.synchronize = None", "module-patching"),
    ("s = torch.cuda.Stream()", "stream"),
    ("f = torch.compile(x)", "torch-compile"),
    ("t = typing.sys", "introspection"),
])
def test_kernel_bodies_are_reviewed_for_everything_else(decorator, snippet, rule):
    src = HEADER + "import typing\n" + decorator + "\ndef k(x, n):\n    " + snippet + "\n    return x\nclass ModelNew: pass\n"
    line = src.splitlines().index("    " + snippet) + 1
    found = review(src, "cand.py")
    assert (rule, line) in [(r.rule, r.line) for r in found], found


HOSTILE_FN = HEADER + '''
@triton.jit
def _rms_kernel(x_ptr, y_ptr, n):
    fh = open("/tmp/aka-wrote-here", "w")
    fh.write("pwned")
    return x_ptr


class ModelNew(torch.nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        _rms_kernel.fn(x, y, x.numel())
        return y
'''


def test_a_kernel_body_run_on_the_host_through_fn_is_caught_twice():
    """The issue's case: a jit body that opens a file, run by forward through `kernel.fn(...)`."""
    found = [(r.rule, r.line) for r in review(HOSTILE_FN, "cand.py")]
    assert found == [("io", 7), ("kernel-fn-call", 15)]


@pytest.mark.parametrize("snippet", ["_k.fn(x)", "_k.base_fn(x)", "f = _k.fn", "self.k.fn(x)",
                                     "getattr(_k, 'fn')(x)", "[_k][0].fn(x)", "_k.fn.fn(x)"])
def test_running_a_kernels_python_body_is_refused(snippet):
    src = HEADER + ("class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        " + snippet
                    + "\n        return x\n\n@triton.jit\ndef _k(x):\n    pass\n")
    found = review(src, "cand.py")
    assert ("kernel-fn-call", 6) in [(r.rule, r.line) for r in found], found


def test_a_modules_own_fn_attribute_is_not_a_kernel_body():
    src = HEADER + "class ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return self.fn(x)\n"
    assert review(src, "cand.py") == []


def test_missing_model_new_and_syntax_errors():
    assert rules("import torch\n") == ["no-model-new"]
    bad = review("def f(:\n", "c.py")
    assert bad[0].rule == "syntax" and bad[0].line == 1


def test_global_state_is_flagged():
    assert "global-state" in rules("cache = {}\ndef f():\n    global cache\nclass ModelNew: pass\n")


@pytest.mark.parametrize("snippet", [
    "probe = torch.cuda.is_current_stream_capturing\nif probe():\n    pass",        # the judge's graphs told apart
    "probe = getattr(torch.cuda, 'is_current_stream_capturing')\nprobe()",
    "f = torch.rsqrt\ny = f(x)",
    "y = getattr(torch, 'rsqrt')(x)",
    "y = getattr(torch.nn.functional, 'silu')(x)",
])
def test_a_torch_function_taken_to_call_later_is_torch_compute(snippet):
    """A torch function read into a name, or by getattr with a literal name, computes when it is
    called later just as a direct call does (a candidate that launches nothing while the judge
    captures its timing graph would ask torch.cuda.is_current_stream_capturing this way)."""
    assert "torch-compute" in rules(HEADER + "x = None\n" + snippet + "\n")


@pytest.mark.parametrize("snippet", [
    "is_hip = torch.version.hip is not None",
    "lo = -torch.inf\nd = torch.float32\nm = torch.nn.Module",
    "props = getattr(torch.cuda, 'get_device_properties')",
])
def test_reading_metadata_constants_types_and_namespaces_passes(snippet):
    assert rules(HEADER + snippet + "\nclass ModelNew:\n    pass\n") == []
