"""Correctness and runtime honesty for one shape (worker side).

Per shape: trials of candidate -> reference -> candidate on fresh seeded inputs; inputs must be
unchanged (or equal the reference's where declared in `mutates`); no output may alias an input;
fresh memory is NaN-poisoned; the same buffers refilled with new values must give new, correct
outputs; and ghost replay (the candidate's kernels made no-ops) must change the output.
"""

from __future__ import annotations

from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any, Callable

import torch

from aka.evaluate import compare as cmp
from aka.evaluate.loading import Inputs, Operator, ghosted, poisoned, synchronize
from aka.evaluate.tracing import traced
from aka.spec.op import Tolerance


MISMATCH_RULES = {"dtype": "wrong-dtype", "shape": "wrong-shape", "structure": "wrong-shape",
                  "device": "wrong-device", "unwritten": "unwritten-output"}


@dataclass
class ShapeCheck:
    """What the checks of one shape found; `rule` is set on the first failure."""

    correct: bool = True
    rule: str = ""
    detail: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0
    trials: int = 0
    bytes_io: int = 0
    input_shapes: list[list[int]] = field(default_factory=list)
    """Shapes of the tensor inputs, in call order (a dispatcher keys its buckets on them)."""
    notes: list[str] = field(default_factory=list)

    def fail(self, rule: str, detail: str) -> "ShapeCheck":
        self.correct, self.rule, self.detail = False, rule, detail
        return self


@dataclass
class Pair:
    """The reference and the candidate model built for one shape."""

    ref: torch.nn.Module
    cand: torch.nn.Module


def check_shape(op: Operator, pair: Pair, kernels: dict[str, Any], params: dict[str, Any],
                seed: int, trials: int, tol: Tolerance, mutates: tuple[str, ...],
                ghost: bool = True) -> ShapeCheck:
    """Run every correctness and runtime-honesty check of one shape."""
    res = ShapeCheck()
    for t in range(trials):
        inputs = op.make_inputs(params, seed + t)
        ok, ref_out, cand_in = _trial(op, pair, inputs, tol, mutates, res,
                                      kernels if t == 0 else None)
        res.trials = t + 1
        if not ok:
            return res
        if t == 0:
            res.bytes_io = _bytes(inputs, pair.ref, ref_out)
            res.input_shapes = [list(v.shape) for _, v in inputs.tensors()]
            if not _refill(op, pair, cand_in, params, seed + 7919, tol, res):
                return res
            if ghost and not _ghost(op, pair, kernels, inputs, mutates, tol, res):
                return res
    return res


def _call(model: torch.nn.Module, inputs: Inputs, device: torch.device) -> Any:
    with torch.no_grad():
        out = inputs.call(model)
    synchronize(device)
    return out


def _trial(op: Operator, pair: Pair, pristine: Inputs, tol: Tolerance,
           mutates: tuple[str, ...], res: ShapeCheck,
           trace_kernels: dict[str, Any] | None = None) -> tuple[bool, Any, Inputs]:
    dev = op.device
    c1 = pristine.clone()
    with poisoned(), (traced(trace_kernels) if trace_kernels is not None else nullcontext()) as tracer:
        out1 = _call(pair.cand, c1, dev)
    if tracer is not None and tracer.calls:
        res.fail("runtime-torch-compute", "forward computed with torch outside the candidate's own "
                                          f"kernels at run time: {tracer.summary()}")
        return False, None, c1
    for name, t in c1.tensors():
        if name not in mutates and not cmp.identical(t, pristine.values[name]):
            res.fail("input-modified", f"the candidate changed input `{name}`, which the operator "
                                       "does not declare in `mutates`")
            return False, None, c1
    r = pristine.clone()
    ref_out = _call(pair.ref, r, dev)
    ref_alias = {inp for _, inp in cmp.aliased(ref_out, r.tensors())}
    for path, inp in cmp.aliased(out1, c1.tensors()):
        if inp not in ref_alias:
            res.fail("output-aliases-input", f"{path} shares memory with input `{inp}`")
            return False, None, c1
    c2 = pristine.clone()
    with poisoned():
        out2 = _call(pair.cand, c2, dev)
    for label, out in (("first", out1), ("second", out2)):
        m = cmp.compare(out, ref_out, tol.atol, tol.rtol, poisoned=True, per_path=tol.outputs)
        if not m.ok:
            res.fail(MISMATCH_RULES.get(m.kind, "wrong-output"), f"{label} candidate call: {m.detail}")
            return False, None, c2
        res.max_abs, res.max_rel = max(res.max_abs, m.max_abs), max(res.max_rel, m.max_rel)
    for name in mutates:
        if name in c1.values:
            m = cmp.compare(c1.values[name], r.values[name], tol.atol, tol.rtol)
            if not m.ok:
                res.fail("wrong-mutation", f"mutated input `{name}`: {m.detail}")
                return False, None, c2
    return True, ref_out, c2


def _refill(op: Operator, pair: Pair, cand_in: Inputs, params: dict[str, Any], seed: int,
            tol: Tolerance, res: ShapeCheck) -> bool:
    """Refill the candidate's last input buffers in place with new values: the output must follow."""
    fresh = op.make_inputs(params, seed)
    for name, t in cand_in.tensors():
        t.copy_(fresh.values[name])
    pristine = cand_in.clone()
    with poisoned():
        out = _call(pair.cand, cand_in, op.device)
    ref_out = _call(pair.ref, pristine, op.device)
    m = cmp.compare(out, ref_out, tol.atol, tol.rtol, per_path=tol.outputs)
    if not m.ok:
        res.fail("stale-output", "the same input buffers refilled with new values gave a wrong "
                                 f"output (a result cached by address or identity?): {m.detail}")
        return False
    return True


def _ghost(op: Operator, pair: Pair, kernels: dict[str, Any], pristine: Inputs,
           mutates: tuple[str, ...], tol: Tolerance, res: ShapeCheck) -> bool:
    """With the candidate's own kernels made no-ops, the result (outputs and mutated inputs) must
    no longer be right."""
    if not kernels:
        res.fail("no-kernel", "the candidate defines no Triton kernel (@triton.jit) of its own")
        return False
    r = pristine.clone()
    ref_out = _call(pair.ref, r, op.device)
    want = (ref_out, [r.values[m] for m in mutates if m in r.values])
    g = pristine.clone()
    try:
        with ghosted(kernels), poisoned():
            out = _call(pair.cand, g, op.device)
    except Exception:  # noqa: BLE001 - a candidate that breaks without its kernels is fine
        return True
    got = (out, [g.values[m] for m in mutates if m in g.values])
    if cmp.compare(got, want, tol.atol, tol.rtol).ok:
        res.fail("ghost-replay", "the result stays correct with the candidate's kernels "
                                 f"({', '.join(sorted(kernels))}) disabled: the work is done elsewhere")
        return False
    return True


def _bytes(inputs: Inputs, model: torch.nn.Module, out: Any) -> int:
    """Bytes of all inputs, parameters, buffers and outputs (roofline `bytes: auto`)."""
    total = sum(t.numel() * t.element_size() for _, t in inputs.tensors())
    total += sum(p.numel() * p.element_size() for p in model.parameters())
    total += sum(b.numel() * b.element_size() for b in model.buffers())
    total += sum(t.numel() * t.element_size() for _, t in cmp.flatten(out) if isinstance(t, torch.Tensor))
    return int(total)


def build_pair(op: Operator, cand_cls: Callable, params: dict[str, Any], seed: int) -> Pair:
    """Reference and candidate models; the candidate gets a copy of the reference's parameters."""
    ref = op.build(params, seed)
    args, kwargs = op.init_args(params)
    torch.manual_seed(seed)
    cand = op.place_model(cand_cls(*args, **kwargs))
    cand.load_state_dict(ref.state_dict(), strict=True)
    return Pair(ref, cand)
