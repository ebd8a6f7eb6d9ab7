"""How much memory an operator's evaluation needs, estimated before anything is allocated.

The inputs and the reference's output are built on PyTorch's `meta` device (shapes and dtypes, no
storage). An evaluation keeps at most, at once: in the judge, the inputs, the reference's output
and the candidate's handed-over output; in the candidate's process, the pristine inputs, the
working copy and its output. A problem whose inputs + reference output + candidate output exceed
half the device's memory cannot be judged here: that is the device's limit (exit 3), not any
candidate's failure.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass
from typing import Any

import torch

from aka.evaluate.compare import flatten

DEVICE_SHARE = 0.5
"""Inputs + reference output + candidate output must fit in this share of the device."""


@dataclass
class Footprint:
    """The largest shape's bytes against what the device has."""

    shape_params: dict[str, Any]
    input_bytes: int
    output_bytes: int
    needed_bytes: int
    """inputs + reference output + candidate output."""
    available_bytes: int
    """The device's memory (host memory on the CPU)."""
    output_estimated: bool = False
    """True when the reference could not run on `meta` and the output was taken as the inputs'
    size."""

    @property
    def too_large(self) -> bool:
        return self.needed_bytes > DEVICE_SHARE * self.available_bytes

    def message(self) -> str:
        gib = 2**30
        return (f"the device is too small for this problem: shape {self.shape_params} needs "
                f"{self.needed_bytes / gib:.1f} GiB (inputs {self.input_bytes / gib:.1f} GiB + reference "
                f"and candidate outputs {2 * self.output_bytes / gib:.1f} GiB"
                f"{', outputs estimated' if self.output_estimated else ''}), more than "
                f"{DEVICE_SHARE:.0%} of the {self.available_bytes / gib:.1f} GiB available")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "too_large": self.too_large, "message": self.message()}


def _bytes(value: Any) -> int:
    return sum(t.numel() * t.element_size() for _, t in flatten(value) if isinstance(t, torch.Tensor))


def available(device: str, memory_limit_bytes: int = 0) -> int:
    """The device's total memory; on the CPU the host's (capped by the job's memory limit)."""
    if device == "cuda":
        return int(torch.cuda.get_device_properties(0).total_memory)
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    return min(total, memory_limit_bytes) if memory_limit_bytes else total


def measure(op: Any, params: dict[str, Any]) -> tuple[int, int, bool] | None:
    """(input bytes, output bytes, output estimated) of one shape, from `meta` tensors; None when
    the reference cannot build its inputs there."""
    from aka.evaluate.loading import Operator

    try:
        meta = Operator(op.spec, "meta", op.dtype_name)
        with torch.device("meta"):
            inputs = meta.make_inputs(params, 0)
    except Exception:  # noqa: BLE001 - not every reference runs on meta; then no estimate
        return None
    in_bytes = _bytes([v for _, v in inputs.tensors()])
    try:
        with torch.device("meta"), torch.no_grad():
            out = inputs.call(meta.build(params, 0))
        return in_bytes, _bytes(out), False
    except Exception:  # noqa: BLE001 - e.g. an op without a meta kernel: assume outputs ~ inputs
        return in_bytes, in_bytes, True


def estimate(op: Any, shapes: list[dict[str, Any]], device: str, memory_limit_bytes: int = 0) -> Footprint | None:
    """The footprint of the largest shape (None when no shape could be measured)."""
    worst: Footprint | None = None
    have = available(device, memory_limit_bytes if device != "cuda" else 0)
    for params in shapes:
        got = measure(op, params)
        if got is None:
            continue
        in_b, out_b, guessed = got
        fp = Footprint(params, in_b, out_b, in_b + 2 * out_b, have, guessed)
        if worst is None or fp.needed_bytes > worst.needed_bytes:
            worst = fp
    return worst
