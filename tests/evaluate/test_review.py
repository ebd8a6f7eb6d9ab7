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
    ("threading", "concurrency"), ("multiprocessing", "concurrency"), ("asyncio", "concurrency"),
    ("ctypes", "native-code"), ("socket", "io"), ("subprocess", "io"), ("os", "io"),
    ("numpy", "host-compute"),
])
def test_forbidden_imports(module, rule):
    assert rule in rules(f"import {module}\nclass ModelNew: pass\n")
    assert rule in rules(f"from {module} import x\nclass ModelNew: pass\n")


def test_aliases_are_resolved():
    src = "import torch.nn.functional as F\nfrom torch import rsqrt\nclass ModelNew:\n    def f(self, x):\n        return F.gelu(rsqrt(x))\n"
    found = review(src, "c.py")
    assert {(r.rule, r.line) for r in found} >= {("torch-compute", 2), ("torch-compute", 5)}


def test_kernel_bodies_are_not_reviewed_but_helpers_are():
    src = HEADER + "@triton.jit\ndef k(x):\n    y = x.sum()\n\ndef helper(x):\n    return x.sum()\nclass ModelNew: pass\n"
    found = review(src, "c.py")
    assert [(r.rule, r.line) for r in found] == [("tensor-method-math", 9)]


def test_missing_model_new_and_syntax_errors():
    assert rules("import torch\n") == ["no-model-new"]
    bad = review("def f(:\n", "c.py")
    assert bad[0].rule == "syntax" and bad[0].line == 1


def test_global_state_is_flagged():
    assert "global-state" in rules("cache = {}\ndef f():\n    global cache\nclass ModelNew: pass\n")
