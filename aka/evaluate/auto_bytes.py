"""The roofline's `bytes: auto` of one shape without allocating it: the judge's count
(`correctness.bytes_of`: inputs, parameters, buffers and the reference's outputs) taken from the
reference built and run on PyTorch's `meta` device (shapes and dtypes, no storage), so a shape of
many GB costs nothing and needs no GPU. Torch is imported on the first count, not with the module.
"""

from __future__ import annotations

import contextlib
import io
import warnings

from aka.spec.op import OpSpec


def auto_bytes(spec: OpSpec, shape_id: str) -> int | None:
    """`bytes_of` one call at a shape in the operator's dtype, counted on `meta`; None when the
    reference cannot run there (an op without a meta kernel, `.item()`, data-dependent shapes)."""
    import torch

    from aka.evaluate.correctness import bytes_of
    from aka.evaluate.loading import Operator

    params = spec.shape(shape_id).params
    quiet = contextlib.redirect_stdout(io.StringIO())     # a --json document stays one document
    try:
        with warnings.catch_warnings(), quiet:
            warnings.simplefilter("ignore")
            op = Operator(spec.to_dict(), "meta", spec.dtype)
            with torch.device("meta"):
                model = op.build(params, 0)
                inputs = op.make_inputs(params, 0)
                out = op.reference_forward(model, inputs)
    except Exception:  # noqa: BLE001 - not every reference runs on meta; then no count
        return None
    return bytes_of(inputs, model, out)
