"""Static review of a candidate's source: an import allowlist, torch compute outside kernels, known cheats.

The rules, their ids and the reasoning behind them are listed in docs/honesty.md. The review never
imports or runs the candidate; it walks the AST. Every function body is reviewed, Triton kernels
(functions decorated with triton.jit / autotune / heuristics) included: inside a kernel only the
torch-compute, tensor-method and `@` rules are lifted (tl.* arithmetic is the kernel's work).
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import types
from dataclasses import dataclass, field
from pathlib import Path

from aka.spec.result import Rejection

# Calls into torch that only allocate, describe or configure: everything else in torch computes.
TORCH_ALLOWED = {
    "empty", "empty_like", "empty_strided", "zeros", "zeros_like", "ones", "ones_like", "full",
    "full_like", "tensor", "as_tensor", "device", "dtype", "Size", "finfo", "iinfo",
    "get_default_dtype", "is_tensor", "is_floating_point", "no_grad", "inference_mode",
    "promote_types", "result_type", "broadcast_shapes",
    "cuda.current_device", "cuda.device", "cuda.get_device_properties", "cuda.get_device_capability",
    "cuda.is_available", "cuda.device_count", "cuda.synchronize", "cuda.current_stream",
    "nn.Parameter", "nn.Module", "nn.ModuleList", "nn.ParameterList", "nn.ParameterDict",
    "nn.Buffer", "nn.init.normal_", "nn.init.ones_", "nn.init.zeros_", "nn.init.uniform_",
    "inf", "nan", "pi", "e",   # constants, read rather than called
}
TORCH_COMPILE = ("compile", "jit", "_dynamo", "_inductor", "export", "fx")
TORCH_STREAMS = ("cuda.Stream", "cuda.stream", "cuda.ExternalStream", "cuda.set_stream",
                 "cuda.StreamContext", "cuda.Event", "cuda.CUDAGraph", "cuda.graph", "Stream",
                 "cuda.graphs", "cuda.streams")
TORCH_NATIVE = ("utils.cpp_extension", "_C", "ops", "library", "classes")
TORCH_IO = ("load", "save", "hub", "from_file")
TORCH_CONCURRENCY = ("multiprocessing", "distributed")

# Tensor methods that compute (or move data) rather than describe, view or cast.
TENSOR_MATH = {
    "sum", "mean", "prod", "exp", "exp2", "log", "log2", "log1p", "expm1", "pow", "sqrt", "rsqrt",
    "softmax", "log_softmax", "matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "dot", "einsum",
    "max", "min", "amax", "amin", "argmax", "argmin", "topk", "sort", "argsort", "cumsum",
    "cumprod", "logsumexp", "norm", "var", "std", "abs", "neg", "sigmoid", "tanh", "relu", "silu",
    "gelu", "erf", "sin", "cos", "mul", "add", "sub", "div", "clamp", "clip", "reciprocal",
    "square", "where", "masked_fill", "masked_scatter", "masked_select", "index_select",
    "gather", "scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_put",
    "repeat", "repeat_interleave", "tile", "flip", "roll", "tril", "triu", "lerp", "addcmul",
    "addcdiv", "fmod", "remainder", "floor", "ceil", "round", "trunc", "sign", "maximum",
    "minimum", "eq", "ne", "lt", "le", "gt", "ge", "all", "any", "nonzero", "unique", "bincount",
    "histc", "outer", "cross", "kron", "linear", "conv1d", "conv2d", "layer_norm", "rms_norm",
    "clone", "copy_", "fill_", "zero_", "normal_", "uniform_", "random_", "exponential_",
    "mul_", "add_", "sub_", "div_", "pow_", "exp_", "clamp_", "sqrt_", "rsqrt_", "neg_",
    "masked_fill_", "index_fill_", "scatter_", "scatter_add_", "index_add_", "put_", "apply_",
    "map_", "cpu", "numpy", "tolist", "backward",
}

# The import allowlist: a candidate may import these modules (and their submodules) and nothing else.
ALLOWED_MODULES = ("torch", "triton", "math", "functools", "typing", "dataclasses", "enum", "collections",
                   "itertools", "operator", "numbers", "abc", "__future__", "warnings")
# Refused imports by what they give a candidate (the rule id); any other module outside the
# allowlist is refused as `import-not-allowed`.
REFUSED_MODULES = {
    "introspection": ("inspect", "gc", "traceback", "sys", "builtins", "importlib", "_imp", "dis",
                      "types", "runpy", "pkgutil", "zipimport", "code", "codeop", "pdb",
                      "_frozen_importlib", "_frozen_importlib_external", "faulthandler"),
    "concurrency": ("threading", "_thread", "multiprocessing", "concurrent", "asyncio", "signal",
                    "sched", "queue", "_signal"),
    "native-code": ("ctypes", "_ctypes", "cffi", "_cffi_backend", "mmap", "pycuda", "cuda", "cupy_backends"),
    "io": ("os", "posix", "nt", "posixpath", "ntpath", "_posixsubprocess", "io", "_io", "pathlib",
           "shutil", "tempfile", "pickle", "_pickle", "marshal", "shelve", "socket", "_socket", "ssl",
           "select", "urllib", "http", "requests", "subprocess", "glob", "fcntl", "sqlite3", "json",
           "time", "zipfile", "tarfile", "gzip"),
    "host-compute": ("numpy", "scipy", "jax", "cupy", "numba", "pandas"),
}
# Module names that, reached as an attribute of an allowed module (`typing.sys`, `torch.os`,
# `collections._sys`), hand out what the allowlist refuses.
REACHABLE = ("os", "sys", "builtins", "importlib", "inspect", "gc", "ctypes", "cffi", "mmap",
             "subprocess", "socket", "shutil", "pickle", "marshal", "posix", "nt", "posixsubprocess",
             "threading", "thread", "multiprocessing")
# Parts of triton a candidate may not use: they build or load native code, or time and test.
TRITON_REFUSED = {
    "compile": "native-code", "compiler": "native-code", "backends": "native-code",
    "runtime.build": "native-code", "tools.compile": "native-code", "tools.link": "native-code",
    "tools.build_extern": "native-code", "tools.disasm": "native-code",
    "testing": "import-not-allowed", "profiler": "import-not-allowed",
}
# Calls of allowed modules that evaluate strings as code, or read attributes named at run time
# (`operator.attrgetter("s" + "ys")(warnings)` is `warnings.sys`).
STDLIB_REFUSED = ("typing.get_type_hints", "typing.ForwardRef", "typing.evaluate_forward_ref",
                  "operator.attrgetter", "operator.methodcaller")
MODULE_WRITERS = ("enum.global_enum", "enum.global_enum_repr", "enum.global_flag_repr", "enum.global_str")
"""Calls of allowed modules that write into another module by name: `enum.global_enum(E)` copies
E's members into `sys.modules[E.__module__]`, and E's module is whatever the candidate names
(`enum.Enum("E", ..., module="aka.evaluate.timing")`)."""
ENUM_MODULE_HOOKS = ("_convert_",)
"""Enum class methods that read another module's globals by its name (and, `as_global=True`,
write them): refused wherever they are reached, a candidate's own Enum subclass included."""
ATTRIBUTE_BUILTINS = ("getattr", "setattr", "delattr")
"""Builtins that read or write an attribute named by a string: reviewed where called, refused where
passed on as a value (`functools.reduce(getattr, ["s" + "ys"], warnings)` reads a name the review
never sees)."""
INTROSPECTION_CALLS = {"globals", "locals", "vars", "eval", "exec", "compile", "__import__",
                       "breakpoint"}
IO_CALLS = {"open"}
# Builtin names refused wherever they are read, called or not (`f = eval`).
REFUSED_NAMES = INTROSPECTION_CALLS | IO_CALLS | {"__builtins__", "__loader__", "__spec__"}
DUNDER_ATTRS = {"__dict__", "__globals__", "__builtins__", "__code__", "__closure__",
                "__subclasses__", "__mro__", "__bases__", "__base__", "__getattribute__", "__setattr__",
                "__self__", "__wrapped__", "__defaults__", "__kwdefaults__", "__objclass__",
                "__loader__", "__spec__", "__import__", "__reduce__", "__reduce_ex__",
                "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "gi_frame", "cr_frame",
                "ag_frame", "tb_frame", "tb_next", "_getframe"}
TRITON_DECORATORS = ("jit", "autotune", "heuristics")
KERNEL_BODY_ATTRS = ("fn", "base_fn")
"""Attributes of a Triton kernel object that hold its plain Python function."""


def _category(module: str) -> str:
    """The rule id refusing an import of `module` (its root name)."""
    root = module.split(".")[0]
    for rule, modules in REFUSED_MODULES.items():
        if root in modules or "_" + root in modules:
            return rule
    return "import-not-allowed"


@functools.lru_cache(maxsize=None)
def _stdlib_steps(path: str) -> tuple:
    """The objects the steps of a dotted path name when it starts at an allowlisted standard-library
    module: that module (imported to look; never the candidate, torch or triton), then one object a
    step, up to the first step that names nothing. () for any other path."""
    parts = path.split(".")
    if parts[0] not in ALLOWED_MODULES or parts[0] in ("torch", "triton", "__future__"):
        return ()
    try:
        steps = [importlib.import_module(parts[0])]
    except ImportError:
        return ()
    for part in parts[1:]:
        value = getattr(steps[-1], part, None)
        if value is None:
            break
        steps.append(value)
    return tuple(steps)


def _stdlib_module_reached(path: str) -> str | None:
    """The module outside the allowlist that the path reaches through the real standard-library
    module it starts from (`enum.bltns` is builtins, `typing.types` is types), or None."""
    for value in _stdlib_steps(path)[1:]:
        if isinstance(value, types.ModuleType) and value.__name__.split(".")[0] not in ALLOWED_MODULES:
            return value.__name__
    return None


@functools.lru_cache(maxsize=None)
def _is_module_path(path: str) -> bool:
    """Whether the dotted path names a module: for the standard library by looking at the real
    module, for torch and triton by their package folders (a file or package of that name), so
    that neither is imported here."""
    parts = path.split(".")
    if parts[0] not in ALLOWED_MODULES or parts[0] == "__future__":
        return False
    if parts[0] not in ("torch", "triton"):
        steps = _stdlib_steps(path)
        return len(steps) == len(parts) and isinstance(steps[-1], types.ModuleType)
    spec = importlib.util.find_spec(parts[0])
    if spec is None or not spec.submodule_search_locations:
        return len(parts) == 1
    folder = Path(next(iter(spec.submodule_search_locations))).joinpath(*parts[1:])
    return len(parts) == 1 or folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file()


def _triton_rule(path: str) -> str | None:
    """Rule id refusing the triton path `path`, or None when a candidate may use it."""
    rest = path.split(".")[1:]
    for part in rest:
        if part.startswith("_") and not part.endswith("__"):
            return "native-code" if part == "_C" else "import-not-allowed"
    dotted = ".".join(rest)
    for prefix, rule in TRITON_REFUSED.items():
        if dotted == prefix or dotted.startswith(prefix + "."):
            return rule
    return None


@dataclass
class _Scope:
    aliases: dict[str, str] = field(default_factory=dict)
    """Local name -> dotted import path (e.g. F -> torch.nn.functional)."""
    kernels: set[str] = field(default_factory=set)
    """Names of the functions decorated as Triton kernels."""


def review(source: str, filename: str) -> list[Rejection]:
    """Return every rule the candidate breaks (empty: nothing found)."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return [Rejection("syntax", f"not valid Python: {exc.msg}", filename, exc.lineno)]
    reviewer = _Reviewer(filename, _Scope(kernels=_kernel_names(tree)))
    reviewer.visit(tree)
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        reviewer.add("no-model-new", "the candidate defines no top-level `class ModelNew`", tree)
    return sorted(reviewer.found, key=lambda r: (r.line or 0, r.rule))


def _kernel_names(tree: ast.AST) -> set[str]:
    """Functions decorated `...jit`, `...autotune` or `...heuristics`, known before the walk (a
    kernel may be defined below the code that uses it)."""
    return {node.name for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and any(ast.unparse(d.func if isinstance(d, ast.Call) else d).split(".")[-1] in TRITON_DECORATORS
                    for d in node.decorator_list)}


class _Reviewer(ast.NodeVisitor):
    def __init__(self, filename: str, scope: _Scope):
        self.filename = filename
        self.scope = scope
        self.found: list[Rejection] = []
        self._seen: set[tuple[str, int | None]] = set()
        self._kernel_depth = 0
        self._called: set[int] = set()   # attribute nodes checked as the function of a call
        self._consumed: set[int] = set()  # nodes used as an attribute's base or a call's function

    @property
    def in_kernel(self) -> bool:
        return self._kernel_depth > 0

    def add(self, rule: str, message: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", None)
        if (rule, line) not in self._seen:
            self._seen.add((rule, line))
            self.found.append(Rejection(rule, message, self.filename, line))

    # --- imports: the allowlist ----------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._check_path(a.name, node, "import")
            local = a.asname or a.name.split(".")[0]
            self.scope.aliases[local] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.add("import-not-allowed", f"relative import `from {'.' * node.level}{node.module or ''} "
                     "import ...`: a candidate is one file and may import only the allowlist", node)
            return
        mod = node.module or ""
        self._check_path(mod, node, "import")
        for a in node.names:
            full = f"{mod}.{a.name}"
            self._check_path(full, node, "from")
            self.scope.aliases[a.asname or a.name] = full

    def _check_path(self, path: str, node: ast.AST, use: str) -> None:
        """Apply the module rules to a dotted path that is imported ('import', 'from'), called or read."""
        parts = path.split(".")
        root = parts[0]
        if root not in ALLOWED_MODULES:
            if use in ("import", "from"):
                self.add(_category(root), f"imports `{path}`: a candidate may import only "
                         f"{', '.join(ALLOWED_MODULES)}", node)
            return
        for part in parts[1:]:
            if part.lstrip("_") in REACHABLE:
                self.add(_category(part.lstrip("_")), f"`{path}` reaches the module `{part.lstrip('_')}` "
                         f"through `{root}`", node)
                return
        if root == "torch":
            self._check_torch_path(path, node, use)
        elif root == "triton":
            rule = _triton_rule(path)
            if rule:
                why = ("builds or loads native code outside a @triton.jit kernel" if rule == "native-code"
                       else "private, benchmarking or testing internals; timing belongs to the harness")
                self.add(rule, f"uses `{path}`: {why}", node)
        elif path in MODULE_WRITERS:
            self.add("module-patching", f"uses `{path}`, which writes into the module its argument names", node)
        elif path in STDLIB_REFUSED or any(path.startswith(p + ".") for p in STDLIB_REFUSED):
            self.add("introspection", f"uses `{path}`, which evaluates strings as code or reads attributes "
                     "named at run time", node)
        elif any(p.startswith("_") and not p.endswith("__") for p in parts[1:]):
            self.add("introspection", f"uses `{path}`: private internals of the standard library "
                     "(`dataclasses._create_fn` runs a string as code)", node)
        else:
            reached = _stdlib_module_reached(path)
            if reached:
                self.add(_category(reached), f"`{path}` reaches the module `{reached}` through `{root}`", node)

    # --- functions: every body is reviewed, kernels with the compute rules lifted ---------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if not any(self._is_triton_decorator(d) for d in node.decorator_list):
            self.generic_visit(node)
            return
        self.scope.kernels.add(node.name)
        for dec in node.decorator_list:
            self.visit(dec)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self._kernel_depth += 1
        try:
            for stmt in node.body:
                self.visit(stmt)
        finally:
            self._kernel_depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def _is_triton_decorator(self, dec: ast.AST) -> bool:
        path = self._resolve(dec.func if isinstance(dec, ast.Call) else dec)
        return bool(path) and path.split(".")[0] == "triton" and path.split(".")[-1] in TRITON_DECORATORS

    # --- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        self._consumed.add(id(node.func))
        path = self._resolve(node.func)
        if path:
            self._check_path(path, node, "call")
            self._called.add(id(node.func))
        elif isinstance(node.func, ast.Name):
            self._called.add(id(node.func))
            self._check_builtin_call(node)
        elif isinstance(node.func, ast.Attribute):
            if node.func.attr in KERNEL_BODY_ATTRS and not _is_self(node.func.value):
                self.add("kernel-fn-call", f"calls `.{node.func.attr}(...)`: running a Triton kernel's "
                         "Python body on the host is not a kernel launch", node)
            elif node.func.attr in TENSOR_MATH and not self.in_kernel:
                self.add("tensor-method-math",
                         f"`.{node.func.attr}()` computes with torch outside the kernel", node)
        if path and path.split(".")[0] == "os" and path.endswith(("fork", "system", "popen")):
            self.add("concurrency", f"calls `{path}`", node)
        self.generic_visit(node)

    def _check_builtin_call(self, node: ast.Call) -> None:
        name = node.func.id  # type: ignore[union-attr]
        if name in INTROSPECTION_CALLS:
            self.add("introspection", f"calls `{name}()`", node)
        elif name in IO_CALLS:
            self.add("io", f"calls `{name}()`" + (": opens a file" if name == "open" else ""), node)
        elif name in ("getattr", "setattr", "delattr", "hasattr"):
            attr = node.args[1] if len(node.args) > 1 else None
            if node.args and isinstance(attr, ast.Constant):
                self._consumed.add(id(node.args[0]))  # getattr(torch, "x") is torch.x, checked as such below
            if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
                self.add("introspection", f"`{name}` with a computed attribute name", node)
            elif attr.value in DUNDER_ATTRS or attr.value.startswith("__"):
                self.add("introspection", f"`{name}(..., {attr.value!r})`", node)
            elif attr.value in KERNEL_BODY_ATTRS:
                self.add("kernel-fn-call", f"`{name}(..., {attr.value!r})` reaches a Triton kernel's "
                         "Python body", node)
            elif attr.value.lstrip("_") in REACHABLE:
                self.add(_category(attr.value.lstrip("_")), f"`{name}(..., {attr.value!r})` reaches "
                         "a module outside the allowlist", node)
            elif name == "getattr" and node.args and self._resolve(node.args[0]):
                # getattr(torch, "rsqrt") is torch.rsqrt: the same rules as the attribute itself
                self._check_path(f"{self._resolve(node.args[0])}.{attr.value}", node, "read")
            if name in ("setattr", "delattr") and node.args and self._is_module_ref(node.args[0]):
                self.add("module-patching", f"`{name}` on module `{self._resolve(node.args[0])}`", node)

    def _check_torch_path(self, path: str, node: ast.AST, use: str) -> None:
        """Torch paths: compile, streams, native code, io and concurrency everywhere; compute
        when called, imported by name or read (a function taken to call later, `getattr(torch,
        "x")` included) outside a kernel."""
        rest = path[len("torch."):] if path.startswith("torch.") else ""
        if not rest:
            return
        if _starts(rest, TORCH_COMPILE):
            self.add("torch-compile", f"uses `{path}`", node)
        elif _starts(rest, TORCH_STREAMS):
            self.add("stream", f"uses `{path}` (streams, events and graphs belong to the harness)", node)
        elif _starts(rest, TORCH_NATIVE):
            self.add("native-code", f"uses `{path}`", node)
        elif rest in TORCH_IO:
            self.add("io", f"uses `{path}`", node)
        elif _starts(rest, TORCH_CONCURRENCY):
            self.add("concurrency", f"uses `{path}`", node)
        elif use not in ("call", "from", "read") or self.in_kernel:
            return
        elif use in ("from", "read") and (self._is_torch_module(rest) or _starts(rest, ("version",))):
            return                                   # a namespace, or build metadata (torch.version.hip)
        elif rest not in TORCH_ALLOWED and not rest.startswith(("Tensor", "float", "bfloat", "int",
                                                                "uint", "bool", "half", "long")):
            taken = " (taken to be called later)" if use == "read" else ""
            self.add("torch-compute", f"`{path}`{taken} computes with torch outside the kernel", node)

    @staticmethod
    def _is_torch_module(rest: str) -> bool:
        return rest in ("nn", "nn.functional", "cuda", "Tensor", "nn.init", "testing", "utils")

    # --- names, constants, operators, attributes, assignments -------------------------------------
    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in REFUSED_NAMES and node.id not in self.scope.aliases:
            rule = "io" if node.id in IO_CALLS else "introspection"
            self.add(rule, f"uses the builtin `{node.id}`", node)
        elif (isinstance(node.ctx, ast.Load) and node.id in self.scope.aliases and id(node) not in self._consumed
              and _is_module_path(self.scope.aliases[node.id])):
            self._module_escapes(self.scope.aliases[node.id], node)
        elif (isinstance(node.ctx, ast.Load) and node.id in ATTRIBUTE_BUILTINS and node.id not in self.scope.aliases
              and id(node) not in self._called):
            self.add("introspection", f"passes the builtin `{node.id}` on as a value: the attribute it "
                     "reaches is named where the review cannot see it", node)

    def _module_escapes(self, path: str, node: ast.AST) -> None:
        self.add("introspection", f"uses the module `{path}` as a value (bound to a name, passed or returned): "
                 "the review follows attribute paths only from an import, so `m = torch.utils; m.data...` "
                 "would leave it; import what you need by name", node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and node.value in DUNDER_ATTRS:
            self.add("introspection", f"the string {node.value!r} names an introspection attribute", node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult) and not self.in_kernel:
            self.add("matmul-operator", "`@` computes a matrix product with torch outside the kernel", node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._consumed.add(id(node.value))
        path = self._resolve(node)
        if path and id(node) not in self._consumed and _is_module_path(path):
            self._module_escapes(path, node)
        if node.attr in DUNDER_ATTRS:
            self.add("introspection", f"reads `.{node.attr}`", node)
        elif node.attr in ENUM_MODULE_HOOKS:
            self.add("module-patching", f"reads `.{node.attr}`, which reads (and can write) another module's "
                     "globals by its name", node)
        elif node.attr in KERNEL_BODY_ATTRS and self._root_name(node.value) in self.scope.kernels:
            self.add("kernel-fn-call", f"reads `{ast.unparse(node)}`: a Triton kernel's Python body, "
                     "which runs on the host", node)
        if path and id(node) not in self._called:     # a called one was checked as the call
            self._check_path(path, node, "read")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        for t in node.targets:
            self._check_target(t)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._check_target(node.target)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for t in node.targets:
            self._check_target(t)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.add("global-state", f"`global {', '.join(node.names)}` keeps state between calls", node)

    def _check_target(self, target: ast.AST) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            for t in target.elts:
                self._check_target(t)
            return
        if isinstance(target, ast.Attribute) and self._is_module_ref(target.value):
            self.add("module-patching",
                     f"assigns `{ast.unparse(target)}`, an attribute of another module", target)

    def _is_module_ref(self, node: ast.AST) -> bool:
        while isinstance(node, ast.Attribute):
            node = node.value
        return isinstance(node, ast.Name) and node.id in self.scope.aliases

    @staticmethod
    def _root_name(node: ast.AST) -> str | None:
        """The name an attribute/subscript chain starts from (`k` in `k.fn`, `ks[0].fn`)."""
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return node.id if isinstance(node, ast.Name) else None

    def _resolve(self, node: ast.AST) -> str | None:
        """Dotted import path of a name or attribute chain rooted at an imported name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.scope.aliases:
            return ".".join([self.scope.aliases[node.id], *reversed(parts)])
        return None


def _is_self(node: ast.AST) -> bool:
    """`self` or `cls` itself: `self.fn(...)` calls the module's own attribute, not a kernel's body."""
    return isinstance(node, ast.Name) and node.id in ("self", "cls")


def _starts(rest: str, prefixes: tuple[str, ...]) -> bool:
    return any(rest == p or rest.startswith(p + ".") for p in prefixes)
