"""Every rule a rejection can name: its verdict and where docs/honesty.md explains it.

One table, read by the judge (`status_of`) and by whatever shows a rejection; a rule id that is
not here is a bug in aka, raised as such, never quietly counted as a cheat.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    status: str
    """The EvalStatus value a rejection under this rule gives."""
    anchor: str
    """The docs/honesty.md section that explains it."""


ISOLATION, CORRECTNESS, RUNTIME, STATIC, TIMING = (
    "isolation", "correctness-every-shape", "honesty-at-run-time",
    "honesty-static-review-the-candidates-ast-before-anything-runs", "timing-gpu")

_TABLE: dict[str, tuple[str, str]] = {
    # what became of the candidate's process
    "timeout": ("timeout", ISOLATION), "crash": ("crash", ISOLATION),
    "candidate-exit": ("error", ISOLATION), "out-of-memory": ("error", ISOLATION),
    "load-error": ("error", ISOLATION), "runtime-error": ("error", ISOLATION),
    "syntax": ("error", STATIC), "no-model-new": ("error", STATIC),
    # correctness
    "wrong-output": ("wrong", CORRECTNESS), "unwritten-output": ("wrong", CORRECTNESS),
    "wrong-dtype": ("wrong", CORRECTNESS), "wrong-shape": ("wrong", CORRECTNESS),
    "wrong-device": ("wrong", CORRECTNESS), "wrong-mutation": ("wrong", CORRECTNESS),
    # honesty seen at run time
    "input-modified": ("cheat", RUNTIME), "output-aliases-input": ("cheat", RUNTIME),
    "stale-output": ("cheat", RUNTIME), "runtime-torch-compute": ("cheat", RUNTIME),
    "ghost-replay": ("cheat", RUNTIME), "no-kernel": ("cheat", RUNTIME),
    "foreign-device-time": ("cheat", RUNTIME), "side-stream": ("cheat", RUNTIME),
    "no-device-work": ("cheat", RUNTIME), "output-subclass": ("cheat", RUNTIME),
    "forged-timing": ("cheat", TIMING), "timed-output": ("cheat", TIMING), "batch-output": ("cheat", TIMING),
    # the static review
    "torch-compute": ("cheat", STATIC), "tensor-method-math": ("cheat", STATIC),
    "matmul-operator": ("cheat", STATIC), "torch-compile": ("cheat", STATIC),
    "module-patching": ("cheat", STATIC), "global-state": ("cheat", STATIC),
    "stream": ("cheat", STATIC), "kernel-fn-call": ("cheat", STATIC),
    "import-not-allowed": ("cheat", STATIC), "introspection": ("cheat", STATIC),
    "concurrency": ("cheat", STATIC), "native-code": ("cheat", STATIC), "io": ("cheat", STATIC),
    "host-compute": ("cheat", STATIC),
}
RULES: dict[str, Rule] = {rule: Rule(status, anchor) for rule, (status, anchor) in _TABLE.items()}


class UnknownRule(ValueError):
    """A rejection named a rule this table does not have (a bug in aka, not in a candidate)."""


def rule(rule_id: str) -> Rule:
    try:
        return RULES[rule_id]
    except KeyError:
        raise UnknownRule(f"rule id {rule_id!r} is not in aka.spec.rules (known: {', '.join(sorted(RULES))})") from None


def doc_link(rule_id: str) -> str:
    """Where a rule is explained, as a link into the repository's docs."""
    return f"docs/honesty.md#{rule(rule_id).anchor}"
