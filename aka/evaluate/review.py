"""Static review of a candidate's source: torch compute outside kernels and known cheats.

The rules, their ids and the reasoning behind them are listed in docs/honesty.md. The review never
imports or runs the candidate; it walks the AST. Bodies of Triton kernels (functions decorated with
triton.jit / autotune / heuristics) are not reviewed: inside a kernel everything is the kernel's work.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

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
}
TORCH_COMPILE = ("compile", "jit", "_dynamo", "_inductor", "export", "fx")
TORCH_STREAMS = ("cuda.Stream", "cuda.stream", "cuda.ExternalStream", "cuda.set_stream",
                 "cuda.StreamContext", "cuda.Event", "cuda.CUDAGraph", "cuda.graph", "Stream",
                 "cuda.graphs", "cuda.streams")
TORCH_NATIVE = ("utils.cpp_extension", "_C", "ops", "library", "classes")
TORCH_IO = ("load", "save", "hub", "from_file")

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

FORBIDDEN_MODULES = {
    "introspection": ("inspect", "gc", "traceback", "sys", "builtins", "importlib", "dis", "types"),
    "concurrency": ("threading", "_thread", "multiprocessing", "concurrent", "asyncio", "signal",
                    "sched", "queue"),
    "native-code": ("ctypes", "cffi", "mmap"),
    "io": ("os", "io", "pathlib", "shutil", "tempfile", "pickle", "marshal", "shelve", "socket",
           "ssl", "urllib", "http", "requests", "subprocess", "glob", "fcntl", "sqlite3", "json",
           "time"),
    "host-compute": ("numpy", "scipy", "jax", "cupy", "numba"),
}
INTROSPECTION_CALLS = {"globals", "locals", "vars", "eval", "exec", "compile", "__import__",
                       "breakpoint"}
DUNDER_ATTRS = {"__dict__", "__globals__", "__builtins__", "__code__", "__closure__",
                "__subclasses__", "__mro__", "__bases__", "__getattribute__", "__setattr__",
                "f_back", "f_globals", "f_locals", "gi_frame"}
TRITON_DECORATORS = ("jit", "autotune", "heuristics")


@dataclass
class _Scope:
    aliases: dict[str, str] = field(default_factory=dict)
    """Local name -> dotted import path (e.g. F -> torch.nn.functional)."""
    kernels: set[str] = field(default_factory=set)


def review(source: str, filename: str) -> list[Rejection]:
    """Return every rule the candidate breaks (empty: nothing found)."""
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return [Rejection("syntax", f"not valid Python: {exc.msg}", filename, exc.lineno)]
    reviewer = _Reviewer(filename)
    reviewer.visit(tree)
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        reviewer.add("no-model-new", "the candidate defines no top-level `class ModelNew`", tree)
    return sorted(reviewer.found, key=lambda r: (r.line or 0, r.rule))


class _Reviewer(ast.NodeVisitor):
    def __init__(self, filename: str):
        self.filename = filename
        self.scope = _Scope()
        self.found: list[Rejection] = []
        self._seen: set[tuple[str, int | None]] = set()

    def add(self, rule: str, message: str, node: ast.AST) -> None:
        line = getattr(node, "lineno", None)
        if (rule, line) not in self._seen:
            self._seen.add((rule, line))
            self.found.append(Rejection(rule, message, self.filename, line))

    # --- imports -----------------------------------------------------------------------------
    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._check_module(a.name, node)
            local = a.asname or a.name.split(".")[0]
            self.scope.aliases[local] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        self._check_module(mod, node)
        for a in node.names:
            full = f"{mod}.{a.name}" if mod else a.name
            self._check_module(full, node)
            self.scope.aliases[a.asname or a.name] = full
            if mod.split(".")[0] == "torch":
                self._check_torch_path(full, node, imported=True)

    def _check_module(self, name: str, node: ast.AST) -> None:
        root = name.split(".")[0]
        for rule, modules in FORBIDDEN_MODULES.items():
            if root in modules:
                self.add(rule, f"imports `{name}`", node)

    # --- kernels are not reviewed ------------------------------------------------------------
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        for dec in node.decorator_list:
            target = dec.func if isinstance(dec, ast.Call) else dec
            path = self._resolve(target)
            if path and path.split(".")[0] == "triton" and path.split(".")[-1] in TRITON_DECORATORS:
                self.scope.kernels.add(node.name)
                return
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    # --- calls ---------------------------------------------------------------------------------
    def visit_Call(self, node: ast.Call) -> None:
        path = self._resolve(node.func)
        if path and path.split(".")[0] == "torch":
            self._check_torch_path(path, node)
        elif isinstance(node.func, ast.Name):
            self._check_builtin_call(node)
        elif isinstance(node.func, ast.Attribute) and path is None:
            if node.func.attr in TENSOR_MATH:
                self.add("tensor-method-math",
                         f"`.{node.func.attr}()` computes with torch outside the kernel", node)
        if path and path.split(".")[0] in ("os",) and path.endswith(("fork", "system", "popen")):
            self.add("concurrency", f"calls `{path}`", node)
        self.generic_visit(node)

    def _check_builtin_call(self, node: ast.Call) -> None:
        name = node.func.id  # type: ignore[union-attr]
        if name in INTROSPECTION_CALLS:
            self.add("introspection", f"calls `{name}()`", node)
        elif name == "open":
            self.add("io", "opens a file", node)
        elif name in ("getattr", "setattr", "delattr", "hasattr"):
            attr = node.args[1] if len(node.args) > 1 else None
            if not (isinstance(attr, ast.Constant) and isinstance(attr.value, str)):
                self.add("introspection", f"`{name}` with a computed attribute name", node)
            elif attr.value in DUNDER_ATTRS or attr.value.startswith("__"):
                self.add("introspection", f"`{name}(..., {attr.value!r})`", node)
            if name in ("setattr", "delattr") and node.args and self._is_module_ref(node.args[0]):
                self.add("module-patching", f"`{name}` on module `{self._resolve(node.args[0])}`", node)

    def _check_torch_path(self, path: str, node: ast.AST, imported: bool = False) -> None:
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
        elif imported and self._is_torch_module(rest):
            return
        elif rest not in TORCH_ALLOWED and not rest.startswith(("Tensor", "float", "bfloat", "int",
                                                                "uint", "bool", "half", "long")):
            self.add("torch-compute", f"`{path}` computes with torch outside the kernel", node)

    @staticmethod
    def _is_torch_module(rest: str) -> bool:
        return rest in ("nn", "nn.functional", "cuda", "Tensor", "nn.init", "testing", "utils")

    # --- operators, attributes, assignments ------------------------------------------------------
    def visit_BinOp(self, node: ast.BinOp) -> None:
        if isinstance(node.op, ast.MatMult):
            self.add("matmul-operator", "`@` computes a matrix product with torch outside the kernel", node)
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in DUNDER_ATTRS or node.attr == "_getframe":
            self.add("introspection", f"reads `.{node.attr}`", node)
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
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.scope.aliases

    def _resolve(self, node: ast.AST) -> str | None:
        """Dotted import path of a name or attribute chain rooted at an imported name."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.scope.aliases:
            return ".".join([self.scope.aliases[node.id], *reversed(parts)])
        return None


def _starts(rest: str, prefixes: tuple[str, ...]) -> bool:
    return any(rest == p or rest.startswith(p + ".") for p in prefixes)
