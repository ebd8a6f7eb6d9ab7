"""Output comparison in float64, input integrity and aliasing checks (worker side, needs torch)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch


@dataclass
class Mismatch:
    """Outcome of comparing one candidate output structure against the reference's."""

    ok: bool
    detail: str = ""
    max_abs: float = 0.0
    max_rel: float = 0.0
    kind: str = ""
    """What differs: structure, shape, dtype, device, unwritten (NaN poison), nan, inf, values."""


PLAIN_TENSORS = (torch.Tensor, torch.nn.Parameter)
PLAIN_SCALARS = (bool, int, float, str, type(None))


def foreign_leaves(value: Any, prefix: str = "out") -> list[str]:
    """Paths in an output that are not plain data: a tensor of a subclass, a container or scalar of
    a type of the candidate's. Checked by exact type, so no code of the candidate's runs: a Tensor
    subclass's `__torch_function__` would run at the first torch call on the output (the harness's
    own, at handover), which is where a forger could do the work it skipped in the timed call."""
    kind = type(value)
    if kind in PLAIN_TENSORS or kind in PLAIN_SCALARS:
        return []
    if kind is tuple or kind is list:
        return [p for i, v in enumerate(value) for p in foreign_leaves(v, f"{prefix}[{i}]")]
    if kind is dict:
        if any(type(k) not in (str, int) for k in value):
            return [f"{prefix} (a key of a type of its own)"]
        return [p for k in sorted(value, key=str) for p in foreign_leaves(value[k], f"{prefix}[{k!r}]")]
    return [f"{prefix} ({kind.__module__}.{kind.__qualname__})"]


def flatten(value: Any, prefix: str = "out") -> list[tuple[str, Any]]:
    """Tensors and scalars of a tensor / tuple / list / dict output, with a path for each."""
    if isinstance(value, torch.Tensor):
        return [(prefix, value)]
    if isinstance(value, (tuple, list)):
        items: list[tuple[str, Any]] = []
        for i, v in enumerate(value):
            items += flatten(v, f"{prefix}[{i}]")
        return items
    if isinstance(value, dict):
        items = []
        for k in sorted(value, key=str):
            items += flatten(value[k], f"{prefix}[{k!r}]")
        return items
    return [(prefix, value)]


def compare(out: Any, ref: Any, atol: float, rtol: float, poisoned: bool = False,
            per_path: dict[str, tuple[float, float]] | None = None) -> Mismatch:
    """Elementwise |out - ref| <= atol + rtol*|ref| in float64; NaN/Inf must match exactly.

    `poisoned`: `out` was produced with NaN-poisoned fresh memory (extra NaN = unwritten).
    `per_path`: (atol, rtol) overrides for some output paths."""
    got, want = flatten(out), flatten(ref)
    if [p for p, _ in got] != [p for p, _ in want]:
        return Mismatch(False, f"output structure differs: got {[p for p, _ in got]}, "
                               f"expected {[p for p, _ in want]}", kind="structure")
    worst = Mismatch(True)
    for (path, a), (_, b) in zip(got, want):
        pa, pr = (per_path or {}).get(path, (atol, rtol))
        m = _compare_one(path, a, b, pa, pr, poisoned)
        if not m.ok:
            return m
        worst.max_abs = max(worst.max_abs, m.max_abs)
        worst.max_rel = max(worst.max_rel, m.max_rel)
    return worst


def _compare_one(path: str, a: Any, b: Any, atol: float, rtol: float, poisoned: bool) -> Mismatch:
    if not isinstance(b, torch.Tensor):
        ok = type(a) is type(b) and a == b
        return Mismatch(ok, "" if ok else f"{path}: got {a!r}, expected {b!r}", kind="values")
    if not isinstance(a, torch.Tensor):
        return Mismatch(False, f"{path}: got {type(a).__name__}, expected a tensor", kind="structure")
    if a.shape != b.shape:
        return Mismatch(False, f"{path}: shape {tuple(a.shape)}, expected {tuple(b.shape)}", kind="shape")
    if a.dtype != b.dtype:
        return Mismatch(False, f"{path}: dtype {a.dtype}, expected {b.dtype}", kind="dtype")
    if a.device.type != b.device.type:
        return Mismatch(False, f"{path}: on {a.device}, expected {b.device}", kind="device")
    if a.numel() > CHUNK:
        return _compare_chunked(path, a, b, atol, rtol, poisoned)
    return _compare_flat(path, a, b, atol, rtol, poisoned, 0, tuple(b.shape), b.numel())


CHUNK = 1 << 25
"""Elements compared at once: large outputs are compared in chunks of this many, so the float64
working copies stay a few hundred MB whatever the output's size."""


def _compare_chunked(path: str, a: torch.Tensor, b: torch.Tensor, atol: float, rtol: float,
                     poisoned: bool) -> Mismatch:
    fa, fb = a.reshape(-1), b.reshape(-1)
    worst = Mismatch(True)
    for start in range(0, fb.numel(), CHUNK):
        m = _compare_flat(path, fa[start:start + CHUNK], fb[start:start + CHUNK], atol, rtol, poisoned,
                          start, tuple(b.shape), b.numel())
        if not m.ok:
            return m
        worst.max_abs, worst.max_rel = max(worst.max_abs, m.max_abs), max(worst.max_rel, m.max_rel)
    return worst


def _where(flat: int, offset: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """The multi-dimensional index of element `offset + flat` of a tensor of `shape`."""
    idx, rest = [], offset + flat
    for dim in reversed(shape):
        idx.append(rest % dim if dim else 0)
        rest //= dim if dim else 1
    return tuple(reversed(idx))


def _compare_flat(path: str, a: torch.Tensor, b: torch.Tensor, atol: float, rtol: float, poisoned: bool,
                  offset: int, shape: tuple[int, ...], total: int) -> Mismatch:
    """Compare `a` with `b` (a whole tensor, or a flat chunk starting at element `offset` of a
    tensor of `shape`); indices in messages are the whole tensor's."""
    a, b = a.reshape(-1), b.reshape(-1)
    if not (b.dtype.is_floating_point or b.dtype.is_complex):
        diff = (a != b)
        n = int(diff.sum())
        if n:
            first = int(diff.nonzero()[0])
            return Mismatch(False, f"{path}: {n} elements differ (exact compare; {total} in all), "
                                   f"first at {_where(first, offset, shape)}: got {a[first].item()}, "
                                   f"expected {b[first].item()}", kind="values")
        return Mismatch(True)
    x, y = a.detach().to(torch.float64), b.detach().to(torch.float64)
    xnan, ynan = torch.isnan(x), torch.isnan(y)
    if not torch.equal(xnan, ynan):
        extra = int((xnan & ~ynan).sum())
        kind = "unwritten" if extra and poisoned else "nan"
        return Mismatch(False, f"{path}: NaN pattern differs ({extra} NaN where the reference has "
                               f"none, {int((ynan & ~xnan).sum())} missing)"
                               + ("; fresh memory is NaN-poisoned, so these elements were most "
                                  "likely never written" if kind == "unwritten" else ""), kind=kind)
    xinf, yinf = torch.isinf(x), torch.isinf(y)
    if not torch.equal(xinf, yinf) or not torch.equal(x[xinf], y[yinf]):
        return Mismatch(False, f"{path}: Inf pattern differs from the reference", kind="inf")
    fin = torch.isfinite(y)
    xf, yf = x[fin], y[fin]
    err = (xf - yf).abs()
    bound = atol + rtol * yf.abs()
    bad = err > bound
    max_abs = float(err.max()) if err.numel() else 0.0
    max_rel = float((err / yf.abs().clamp_min(1e-30)).max()) if err.numel() else 0.0
    if bool(bad.any()):
        n = int(bad.sum())
        first = int(fin.nonzero()[int(bad.nonzero()[0])])
        return Mismatch(False, f"{path}: {n} of {total} elements outside atol={atol:g} "
                               f"rtol={rtol:g}; max abs err {max_abs:.3g}; first at "
                               f"{_where(first, offset, shape)}: got {x[first].item():.6g}, "
                               f"expected {y[first].item():.6g}",
                        max_abs, max_rel, kind="values")
    return Mismatch(True, "", max_abs, max_rel)


def map_tensors(fn: Any, value: Any) -> Any:
    """The output structure (tensor / tuple / list / dict, nested) with `fn` applied to each tensor;
    tuples of any kind come back as plain tuples, other leaves unchanged."""
    if isinstance(value, torch.Tensor):
        return fn(value)
    if isinstance(value, (tuple, list)):
        items = [map_tensors(fn, v) for v in value]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {k: map_tensors(fn, v) for k, v in value.items()}
    return value


def identical(a: Any, b: Any) -> bool:
    """Bitwise equality of two tensor structures (NaN equal to NaN in the same place), compared
    in chunks (no index tensors: a mask index of a 2-billion-element tensor needs 60 GB)."""
    fa, fb = flatten(a), flatten(b)
    if len(fa) != len(fb):
        return False
    for (_, x), (_, y) in zip(fa, fb):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            fx, fy = x.reshape(-1), y.reshape(-1)
            for start in range(0, fx.numel(), CHUNK):
                if not _same(fx[start:start + CHUNK], fy[start:start + CHUNK]):
                    return False
        elif x != y:
            return False
    return True


def _same(x: torch.Tensor, y: torch.Tensor) -> bool:
    if x.element_size() == 1 and x.dtype.is_floating_point:          # float8: compare the bits
        return torch.equal(x.view(torch.uint8), y.view(torch.uint8))
    if x.dtype.is_floating_point or x.dtype.is_complex:
        return bool(((x == y) | (torch.isnan(x) & torch.isnan(y))).all())
    return torch.equal(x, y)


def _span(t: torch.Tensor) -> tuple[int, int]:
    start = t.untyped_storage().data_ptr()
    return start, start + t.untyped_storage().nbytes()


def aliased(outputs: Any, inputs: list[tuple[str, torch.Tensor]]) -> list[tuple[str, str]]:
    """(output path, input name) pairs whose storages overlap."""
    pairs = []
    for path, o in flatten(outputs):
        if not isinstance(o, torch.Tensor) or o.untyped_storage().nbytes() == 0:
            continue
        o0, o1 = _span(o)
        for name, t in inputs:
            if t.untyped_storage().nbytes() == 0:
                continue
            i0, i1 = _span(t)
            if o0 < i1 and i0 < o1:
                pairs.append((path, name))
    return pairs
