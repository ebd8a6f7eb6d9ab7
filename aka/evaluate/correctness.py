"""Pieces of the correctness checks shared by the judge and the tools: the rules a mismatch
maps to, the bytes of a call, and building a candidate model beside its reference.

The checks themselves (trials of candidate -> reference -> candidate on fresh seeded inputs,
unchanged inputs, no aliasing, NaN-poisoned fresh memory, refilled buffers, ghost replay) are run
by `aka.evaluate.judge`, which decides them from what the candidate's process hands over.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import torch

from aka.evaluate import compare as cmp
from aka.evaluate.loading import Inputs, Operator

MISMATCH_RULES = {"dtype": "wrong-dtype", "shape": "wrong-shape", "structure": "wrong-shape",
                  "device": "wrong-device", "unwritten": "unwritten-output"}


@dataclass
class Pair:
    """The reference and the candidate model built for one shape."""

    ref: torch.nn.Module
    cand: torch.nn.Module


def bytes_of(inputs: Inputs, model: torch.nn.Module, out: Any) -> int:
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
    with op.constructing():
        cand = op.place_model(cand_cls(*args, **kwargs))
    cand.load_state_dict(ref.state_dict(), strict=True)
    return Pair(ref, cand)
