"""Static checks for what compiled Triton refuses and the interpreter CI runs the kernels in
accepts: a jit function reading a module-level name that is not a `tl.constexpr` ("Cannot access
global variable ... from within @jit'ed function"), and a `tl.constexpr` annotated assignment
inside a loop ("constexpr cannot be reassigned"). Both failed only on the H200 before."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "reference_kernels").rglob("*.py"))


def _module_names(tree: ast.Module) -> dict[str, bool]:
    """Module-level assigned names -> whether each is a constexpr."""
    names: dict[str, bool] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            is_const = isinstance(node.value, ast.Call) and ast.unparse(node.value.func).endswith("constexpr")
            for target in node.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = is_const
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = "constexpr" in ast.unparse(node.annotation)
    return names


def non_constexpr_reads(source: str) -> list[str]:
    """'function: NAME (line N)' for each read of a plain module-level name inside a jit function."""
    tree = ast.parse(source)
    names = _module_names(tree)
    found = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not any("jit" in ast.unparse(d) for d in fn.decorator_list):
            continue
        local = {a.arg for a in fn.args.args} | {n.id for n in ast.walk(fn)
                                                 if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and names.get(n.id) is False \
                    and n.id not in local:
                found.append(f"{fn.name}: {n.id} (line {n.lineno})")
    return found


def constexpr_reassigned(source: str) -> list[str]:
    """'function: NAME (line N)' for each `NAME: tl.constexpr = ...` inside a loop of a jit function:
    compiled Triton refuses the loop's second pass ("constexpr cannot be reassigned"); the
    interpreter runs it."""
    tree = ast.parse(source)
    found = []
    for fn in tree.body:
        if not isinstance(fn, ast.FunctionDef) or not any("jit" in ast.unparse(d) for d in fn.decorator_list):
            continue
        for loop in ast.walk(fn):
            if isinstance(loop, (ast.For, ast.While)):
                for n in ast.walk(loop):
                    if isinstance(n, ast.AnnAssign) and "constexpr" in ast.unparse(n.annotation):
                        found.append(f"{fn.name}: {ast.unparse(n.target)} (line {n.lineno})")
    return found


CHECKS = {"constexpr assigned in a loop (drop the annotation: a static_range index folds anyway)": constexpr_reassigned,
          "plain module constant read in a jit function (make it tl.constexpr(...))": non_constexpr_reads}


@pytest.mark.parametrize("src,check,expected", [
    ("import triton\nimport triton.language as tl\n@triton.jit\ndef k(p, N: tl.constexpr):\n"
     "    for s in tl.static_range(3):\n        h: tl.constexpr = N >> s\n        tl.store(p, h)\n",
     constexpr_reassigned, ["k: h (line 6)"]),
    ("import triton\nimport triton.language as tl\nPAD = 7\nOK = tl.constexpr(7)\n"
     "@triton.jit\ndef k(p):\n    tl.store(p, PAD + OK)\n", non_constexpr_reads, ["k: PAD (line 7)"]),
], ids=["constexpr-in-loop", "plain-global"])
def test_each_check_finds_what_it_is_for(src, check, expected):
    assert check(src) == expected


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_compiled_triton_would_accept_the_kernels_jit_functions(path: Path):
    source = path.read_text()
    found = {rule: check(source) for rule, check in CHECKS.items()}
    assert not any(found.values()), {rule: f for rule, f in found.items() if f}
