"""The source walk behind `aka.propose.descriptors`: what each @triton.jit function of a kernel
file loads, stores, loops over and calls, and which kernels the host code launches, in which
order, passing which tensors (an AST walk; nothing is imported or run)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import NamedTuple

UNIT_NAME = re.compile(r"^(ROWS\w*|\w+_PER_(PROGRAM|PROG|CTA)|BLOCKS_PER_\w+|TOKENS\w*|TILES_PER_\w+|"
                       r"BLOCK_ROWS|ROW_BLOCK|HB)$")
"""Constexpr names that count the work units (rows, tokens, blocks) one program handles."""
REDUCE = ("sum", "max", "min", "reduce", "argmax", "argmin", "cumsum", "cumprod", "associative_scan",
          "histogram", "xor_sum", "dot")


# --- small AST helpers ---------------------------------------------------------------------------
def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return ""


def _call(node: ast.AST) -> str:
    return _dotted(node.func) if isinstance(node, ast.Call) else ""


def _names(node: ast.AST) -> list[str]:
    """Names of an expression, left to right (the pointer comes first in `x_ptr + offs`)."""
    out: list[str] = []

    def walk(n: ast.AST) -> None:
        if isinstance(n, ast.Name):
            out.append(n.id)
        for child in ast.iter_child_nodes(n):
            walk(child)

    walk(node)
    return out


def _kw(call: ast.Call, name: str) -> ast.AST | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def is_jit(fn: ast.AST) -> bool:
    return isinstance(fn, ast.FunctionDef) and any(
        _dotted(d.func if isinstance(d, ast.Call) else d).split(".")[-1] == "jit" for d in fn.decorator_list)


def _targets(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Assign):
        return [n for t in node.targets for n in _names(t)]
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return _names(node.target)
    return []


# --- one kernel ---------------------------------------------------------------------------------
class _Load(NamedTuple):
    base: str
    """The kernel parameter the pointer derives from."""
    vector: bool
    """Offsets from tl.arange (a block of elements), not a scalar."""
    loop: int | None
    """id() of the innermost enclosing loop (None outside loops); for a load a helper makes, a key
    of the call's place and the helper's loop."""
    via: frozenset[str] = frozenset()
    """The function's parameters its pointer expression names (a helper's offsets may come from its
    caller, which decides whether the load is a vector)."""


class _Arg(NamedTuple):
    """What a caller passes for one of a helper's parameters."""

    base: str
    """The caller's parameter the argument derives from ('' for none)."""
    vector: bool
    names: frozenset[str]
    """The caller's parameters the argument names."""


@dataclass
class HelperCall:
    """One call of a jit helper inside a kernel."""

    name: str
    args: list[_Arg]
    kwargs: dict[str, _Arg]
    loop: int | None
    site: int


@dataclass
class Kernel:
    name: str
    params: list[str]
    loads: list[_Load] = field(default_factory=list)
    writes: set[str] = field(default_factory=set)
    """Parameters stored to (tl.store, atomics, descriptor stores)."""
    facts: set[str] = field(default_factory=set)
    helpers: set[str] = field(default_factory=set)
    """Other functions it calls (jit helpers)."""
    calls: list[HelperCall] = field(default_factory=list)
    """Where and with what it calls them."""


class Walk(ast.NodeVisitor):
    """Collects one @triton.jit function's loads, stores, loops and telling calls."""

    def __init__(self, fn: ast.FunctionDef, consts: dict[str, object]):
        self.k = Kernel(fn.name, [a.arg for a in fn.args.args])
        self.consts, self.loops = consts, []
        self.vector, self.alias = self._scan(fn)
        assigned = [n for n in ast.walk(fn) if isinstance(n, ast.Assign)]
        self.nprog = {t for n in assigned if "num_programs" in ast.dump(n.value) for t in _targets(n)}
        self.pid = {t for n in assigned if "program_id" in ast.dump(n.value) for t in _targets(n)}
        self.generic_visit(fn)
        self._prefetch(fn)
        self._row_tiles(fn)

    def _scan(self, fn: ast.FunctionDef) -> tuple[set[str], dict[str, str]]:
        """Vector names (from tl.arange, transitively) and pointer aliases (`base = x_ptr + ...`)."""
        stmts = [n for n in ast.walk(fn) if isinstance(n, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and n.value]
        vector, alias = set(), {}
        params = set(self.k.params)
        changed = True
        while changed:
            changed = False
            for n in stmts:
                names = set(_names(n.value))
                vec = "arange" in ast.dump(n.value) or bool(names & vector)
                for t in _targets(n):
                    if vec and t not in vector:
                        vector.add(t)
                        changed = True
                    base = next((x if x in params else alias[x] for x in _names(n.value)
                                 if (x in params and _pointer(x)) or x in alias), None)
                    if base and t not in alias and t not in params:
                        alias[t] = base
                        changed = True
        return vector, alias

    def _base(self, ptr: ast.AST) -> str:
        names = _names(ptr)
        for name in names:
            if name in self.k.params and _pointer(name):
                return name
            if name in self.alias:
                return self.alias[name]
        return next((n for n in names if n in self.k.params), "")

    def visit_For(self, node: ast.For) -> None:
        it = node.iter
        if isinstance(it, ast.Call) and _call(it).split(".")[-1] in ("range", "static_range"):
            self._loop(it)
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()

    def _loop(self, it: ast.Call) -> None:
        stages = _kw(it, "num_stages")
        value = _int(stages, self.consts)
        if value is not None and value > 1:
            self.k.facts.add("num_stages")
        if _kw(it, "warp_specialize") is not None:
            self.k.facts.add("warp_specialize")
        args = it.args
        if len(args) >= 3 and (set(_names(args[2])) & self.nprog or "num_programs" in ast.dump(args[2])):
            self.k.facts.add("grid-stride")
        bound = args[1] if len(args) >= 2 else (args[0] if args else None)
        if bound is not None and any(UNIT_NAME.match(n) for n in _names(bound)):
            self.k.facts.add("unit-loop")

    def visit_While(self, node: ast.While) -> None:
        self.loops.append(node)
        self.generic_visit(node)
        self.loops.pop()

    def visit_Call(self, node: ast.Call) -> None:
        name = _call(node)
        short = name.split(".")[-1]
        owner = _dotted(node.func.value) if isinstance(node.func, ast.Attribute) else ""
        if name == "tl.load" and node.args:
            self._load(node, node.args[0])
        elif short == "load" and owner in self.k.params:              # a TMA descriptor's load
            self.k.facts.add("tma")
            self.k.loads.append(_Load(owner, True, id(self.loops[-1]) if self.loops else None))
        elif name == "tl.store" and node.args:
            self.k.writes.add(self._base(node.args[0]))
        elif short == "store" and owner in self.k.params:
            self.k.writes.add(owner)
        elif name.startswith("tl.atomic_"):
            self.k.facts.add("atomic")
            if node.args:
                self.k.writes.add(self._base(node.args[0]))
        elif name.startswith("tl.") and short in REDUCE:
            self.k.facts.add("dot" if short == "dot" else "reduce")
        elif short in ("trans", "permute") or (name == "tl.dot_scaled"):
            self.k.facts.add("trans" if short != "dot_scaled" else "dot")
        elif short in ("make_block_ptr", "advance"):
            self.k.facts.add("block-ptr")
        elif short in ("make_tensor_descriptor", "_experimental_make_tensor_descriptor"):
            self.k.facts.add("tma")
        elif short in ("multiple_of", "max_contiguous"):
            self.k.facts.add("hint")
        elif isinstance(node.func, ast.Name) and not name.startswith("tl."):
            self.k.helpers.add(name)
            self.k.calls.append(HelperCall(name, [self._arg(a) for a in node.args],
                                           {k.arg: self._arg(k.value) for k in node.keywords if k.arg},
                                           id(self.loops[-1]) if self.loops else None, id(node)))
        self.generic_visit(node)

    def _arg(self, expr: ast.AST) -> _Arg:
        names = set(_names(expr))
        vector = bool(names & self.vector) or "arange" in ast.dump(expr)
        return _Arg(self._base(expr), vector, frozenset(names & set(self.k.params)))

    def _load(self, call: ast.Call, ptr: ast.AST) -> None:
        names = set(_names(ptr))
        vec = bool(names & self.vector) or "arange" in ast.dump(ptr) or "make_block_ptr" in ast.dump(ptr)
        if any(k.arg in ("eviction_policy", "cache_modifier") for k in call.keywords):
            self.k.facts.add("hint")
        self.k.loads.append(_Load(self._base(ptr), vec, id(self.loops[-1]) if self.loops else None,
                                  frozenset(names & set(self.k.params))))

    def _row_tiles(self, fn: ast.FunctionDef) -> None:
        """`rows = <program> * R + tl.arange(0, R)` used as the leading index of a 2-D tile: the
        program owns R rows (recorded as 'rows:R'); 'row-reduce' when it reduces along axis 1."""
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Assign) and isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Add)):
                continue
            sides = (n.value.left, n.value.right)
            ar = next((x for x in sides if _call(x) == "tl.arange" and len(x.args) == 2), None)
            other = next((x for x in sides if x is not ar), None)
            if ar is None or not isinstance(other, ast.BinOp) or not isinstance(other.op, ast.Mult):
                continue
            size = ar.args[1]
            if not (isinstance(size, ast.Name) and size.id in _names(other)):
                continue
            for t in _targets(n):
                if any(isinstance(s, ast.Subscript) and _names(s.value) == [t] and _lead(s.slice)
                       for s in ast.walk(fn)):
                    self.k.facts.add(f"rows:{size.id}")
        for c in ast.walk(fn):
            short = _call(c).split(".")[-1] if isinstance(c, ast.Call) else ""
            if short in REDUCE + ("sort", "gather", "topk"):
                where = 2 if short == "gather" else 1
                axis = _kw(c, "axis") or _kw(c, "dim") or (c.args[where] if len(c.args) > where else None)
                if (axis is None and short in ("sort", "topk")) or isinstance(axis, ast.UnaryOp) or (
                        isinstance(axis, ast.Constant) and axis.value in (1, -1)):
                    self.k.facts.add("row-reduce")

    def _prefetch(self, fn: ast.FunctionDef) -> None:
        """A value loaded inside a loop but read earlier in the loop's body than that load: the
        next iteration's data is requested before the current data is used (double-buffering)."""
        for loop in (n for n in ast.walk(fn) if isinstance(n, (ast.For, ast.While))):
            loaded, read = {}, {}
            for i, stmt in enumerate(loop.body):
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                        read.setdefault(n.id, i)
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Assign) and "load" in ast.dump(n.value):
                        for t in _targets(n):
                            loaded.setdefault(t, i)
            if any(read.get(t, i) < i for t, i in loaded.items()):
                self.k.facts.add("prefetch")


def inline_helpers(kernels: dict[str, Kernel]) -> None:
    """Credit each kernel with the loads and stores of the jit helpers it calls, on its own
    arguments: a helper's load of its parameter P is the caller's load of what it passed for P, at
    the call's place, so two calls of one sweeping helper are two sweeps. A load whose offsets the
    caller passed is a vector load when the caller's argument is one. Helpers of helpers count
    through their callers; a recursive call counts once."""

    def resolved(name: str, stack: frozenset[str]) -> tuple[list[_Load], set[str]]:
        k = kernels[name]
        loads, writes = list(k.loads), set(k.writes)
        for call in k.calls:
            if call.name not in kernels or call.name in stack:
                continue
            helper = kernels[call.name]
            bound = {**dict(zip(helper.params, call.args)), **call.kwargs}
            inner_loads, inner_writes = resolved(call.name, stack | {call.name})
            for ld in inner_loads:
                arg = bound.get(ld.base)
                if arg is None or not arg.base:
                    continue                             # not a pointer the caller handed over
                vector = ld.vector or any(bound[v].vector for v in ld.via if v in bound)
                via = frozenset().union(*(bound[v].names for v in ld.via | {ld.base} if v in bound))
                loop = call.loop if ld.loop is None else hash((call.site, ld.loop))
                loads.append(_Load(arg.base, vector, loop, via))
            writes |= {bound[w].base for w in inner_writes if w in bound and bound[w].base}
        return loads, writes

    done = {name: resolved(name, frozenset({name})) for name in kernels}
    for name, (loads, writes) in done.items():
        kernels[name].loads, kernels[name].writes = loads, writes


def _lead(slice_: ast.AST) -> bool:
    """`[:, None]`: a vector used as the rows of a 2-D tile."""
    return (isinstance(slice_, ast.Tuple) and len(slice_.elts) >= 2 and isinstance(slice_.elts[0], ast.Slice)
            and isinstance(slice_.elts[1], ast.Constant) and slice_.elts[1].value is None)


def _pointer(name: str) -> bool:
    return name.endswith(("ptr", "_p", "desc")) or name.startswith("ptr")


def _int(node: ast.AST | None, consts: dict[str, object]) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, ast.Name) and isinstance(consts.get(node.id), int):
        return consts[node.id]
    return None


# --- the host side: which kernels run, in which order, passing what ------------------------------
@dataclass
class Launch:
    kernel: str
    args: list[str]
    """The name passed for each positional parameter ('' for expressions)."""
    stages: int | None
    branch: tuple[int, ...]
    values: dict[str, object] = field(default_factory=dict)
    """Constexpr arguments whose value is known (a literal or a module constant)."""
    """The if/else branches it sits in (id, side): launches in exclusive branches never chain."""


class Host(ast.NodeVisitor):
    def __init__(self, tree: ast.Module, kernels: dict[str, Kernel], consts: dict[str, object]):
        self.kernels, self.consts = kernels, consts
        self.launches: list[Launch] = []
        self.facts: set[str] = set()
        self.branch: list[tuple[int, int]] = []
        self.returned: list[tuple[int, int]] = []
        """Early exits passed in the function being walked: (id, 1) of each `if` whose body returns or
        raises, so what follows it can run only when that body did not."""
        for node in tree.body:
            if not is_jit(node):
                self.visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        outer, self.returned = self.returned, []
        self.generic_visit(node)
        self.returned = outer

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        for side, body in ((0, node.body), (1, node.orelse)):
            self.branch.append((id(node), side))
            for stmt in body:
                self.visit(stmt)
            self.branch.pop()
        if node.body and isinstance(node.body[-1], (ast.Return, ast.Raise)) and not node.orelse:
            self.returned.append((id(node), 1))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in ("multi_processor_count", "NUM_SMS"):
            self.facts.add("sm-grid")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in ("NUM_SMS", "TensorDescriptor"):
            self.facts.add("sm-grid" if node.id == "NUM_SMS" else "tma")

    def visit_Call(self, node: ast.Call) -> None:
        f = node.func
        if isinstance(f, ast.Subscript) and _dotted(f.value) in self.kernels:
            args = [a.id if isinstance(a, ast.Name) else "" for a in node.args]
            values = {k.arg: _int(k.value, self.consts) for k in node.keywords if k.arg}
            self.launches.append(Launch(_dotted(f.value), args, _int(_kw(node, "num_stages"), self.consts),
                                         tuple(self.branch + self.returned), values))
        elif _call(node).split(".")[-1] in ("TensorDescriptor", "make_tensor_descriptor"):
            self.facts.add("tma")
        self.generic_visit(node)


def constants(tree: ast.Module) -> dict[str, object]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if isinstance(node.value, ast.Constant):
                out[node.targets[0].id] = node.value.value
    return out


def exclusive(a: Launch, b: Launch) -> bool:
    mine = dict(a.branch)
    return any(k in mine and mine[k] != side for k, side in b.branch)
