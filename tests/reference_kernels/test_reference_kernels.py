"""Every reference kernel matches its operator's reference on the op's cpu_shapes (float32), and on
a CUDA GPU also on every shape in the op's dtype.

Without a GPU the kernels run in Triton's interpreter (tests/conftest.py sets TRITON_INTERPRET=1
before triton is imported); kernels that declare `requires: [gpu]` are skipped there with their
stated reason.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import os
import re
from pathlib import Path

import pytest
import torch

from aka.errors import SpecError
from aka.evaluate.worker import exact_fp32
from aka.spec.kernel import read_kernel_meta
from aka.spec.load import load_op, operator_folder

ROOT = Path(__file__).resolve().parents[2]
KERNELS = sorted((ROOT / "reference_kernels").rglob("*.py"))
SUITES = ROOT / "suites"
INTERPRETED = os.environ.get("TRITON_INTERPRET") == "1"
HAS_CUDA = not INTERPRETED and torch.cuda.is_available()
SMALL_DEVICE = "cuda" if HAS_CUDA else "cpu"  # where the float32 cpu_shapes run
ATOL = RTOL = 1e-4
SEED = 1234


def _import(path: Path, tag: str):
    name = "akaref_" + tag + "_" + re.sub(r"\W", "_", str(path.relative_to(ROOT)))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _cases(stateful_only: bool = False):
    """(kernel, op spec, cpu shape, parameter point) for every kernel at its defaults and at its
    smallest tiles. STATEFUL_ONLY: only kernels that keep device state between calls (an arrival
    counter the last program resets), at their largest CPU shape, where most programs run."""
    for kpath in KERNELS:
        rel = str(kpath.relative_to(ROOT))
        try:
            meta = read_kernel_meta(kpath)
        except SpecError:  # reported by test_front_matter
            continue
        folder = operator_folder(SUITES, meta.op)
        if folder is None:  # reported by test_front_matter
            continue
        if stateful_only and "atomic-counter" not in meta.techniques:
            continue
        spec = load_op(folder)
        marks = []
        if "gpu" in meta.requires and not HAS_CUDA:
            marks.append(pytest.mark.skip(reason=f"requires gpu: {meta.requires_reason}"))
        points = {"default": meta.defaults(), "smallest": _smallest(meta)}
        shapes = spec.cpu_shapes
        if stateful_only:
            shapes = [max(shapes, key=lambda s: math.prod(v for v in s.params.values() if isinstance(v, int)))]
        for shape in shapes:
            for label, point in points.items():
                if label == "smallest" and point == points["default"]:
                    continue
                yield pytest.param(kpath, spec, shape, point, id=f"{rel}::{shape.id}::{label}", marks=marks)


def _smallest(meta) -> dict:
    """Each tunable at its smallest value: small blocks make the cpu_shapes cross block boundaries."""
    return {name: min(p.values) if all(isinstance(v, (int, float)) for v in p.values) else p.default
            for name, p in meta.params.items()}


@pytest.mark.parametrize("kpath", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_front_matter(kpath: Path):
    meta = read_kernel_meta(kpath)
    assert operator_folder(SUITES, meta.op), f"{kpath}: op {meta.op!r} names no suites/*/{meta.op}/op.yaml"
    assert meta.dsl == "triton"
    assert meta.summary, f"{kpath}: no paragraph after the front matter"
    module_src = kpath.read_text()
    for name in meta.params:
        assert re.search(rf"^{name} = ", module_src, re.M), f"{kpath}: param {name} is not a module constant"
    for name, param in meta.params.items():
        value = re.search(rf"^{name} = (.+)$", module_src, re.M).group(1).strip()
        assert value == repr(param.default), f"{kpath}: {name} = {value}, front matter default {param.default!r}"


def test_every_suite_op_loads_and_has_two_kernels():
    ops = sorted(SUITES.glob("*/*/op.yaml"))
    assert ops
    kernel_ops = [read_kernel_meta(k).op for k in KERNELS]
    for path in ops:
        spec = load_op(path)
        assert spec.name == path.parent.name
        assert len(spec.cpu_shapes) >= 2 and len(spec.held_out_shapes) >= 2
        assert kernel_ops.count(spec.name) >= 2, f"{spec.name}: fewer than two reference kernels"


def _flatten(out) -> list[torch.Tensor]:
    if out is None:
        return []
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, dict):
        return [out[k] for k in sorted(out)]
    assert isinstance(out, (tuple, list)), f"unexpected output type {type(out).__name__}"
    return list(out)


def _check_same(got: torch.Tensor, want: torch.Tensor, what: str):
    assert got.shape == want.shape, f"{what}: shape {tuple(got.shape)} != {tuple(want.shape)}"
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    if got.dtype.is_floating_point:
        g, w = got.double(), want.double()     # float64: fp8 has no CPU arithmetic of its own
        assert not torch.isnan(g).any(), f"{what}: NaN in output"
        assert torch.allclose(g, w, atol=ATOL, rtol=RTOL), (
            f"{what}: max abs diff {(g - w).abs().max().item():.3g}")
    else:
        assert torch.equal(got, want), f"{what}: integer outputs differ"


def _bits_equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Exact equality that also works for float8 (no CPU torch.equal for it)."""
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.element_size() == 1 and a.dtype.is_floating_point:
        return torch.equal(a.view(torch.uint8), b.view(torch.uint8))
    return torch.equal(a, b)


@pytest.mark.parametrize("kpath,spec,shape,point", list(_cases()))
def test_kernel_matches_reference(kpath: Path, spec, shape, point: dict):
    _check_kernel(kpath, spec, shape, point, calls=1)


@pytest.mark.parametrize("kpath,spec,shape,point", list(_cases(stateful_only=True)))
def test_stateful_kernel_matches_on_every_call(kpath: Path, spec, shape, point: dict):
    """A counter left non-zero makes the next call skip its merge: three calls in a row, fresh
    inputs each time, must all match the reference."""
    _check_kernel(kpath, spec, shape, point, calls=3)


def _check_kernel(kpath: Path, spec, shape, point: dict, calls: int):
    ref_mod = _import(Path(spec.reference), "ref")
    kern_mod = _import(kpath, "kernel")
    for name, value in point.items():  # the tuner sets parameters the same way: module constants
        setattr(kern_mod, name, value)
    params = dict(shape.params)
    init = ref_mod.init_kwargs(**params) if hasattr(ref_mod, "init_kwargs") else {}
    torch.manual_seed(SEED)
    ref = ref_mod.Model(**init).to(device=SMALL_DEVICE, dtype=torch.float32)
    new = kern_mod.ModelNew(**init).to(device=SMALL_DEVICE, dtype=torch.float32)
    new.load_state_dict(ref.state_dict(), strict=True)

    for call in range(calls):
        torch.manual_seed(SEED + 1 + call)
        inputs = ref_mod.make_inputs(dtype=torch.float32, device=SMALL_DEVICE, **params)
        ref_inputs = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
        new_inputs = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
        with torch.no_grad():  # the kernel first, so it cannot pick up the reference's freed buffers
            got = _flatten(new(*new_inputs))
            want = _flatten(ref(*ref_inputs))
        assert len(got) == len(want), f"{len(got)} outputs, reference has {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            _check_same(g, w, f"call {call + 1}, output {i}")

        names = list(inspect.signature(ref.forward).parameters)
        for name, orig, r, n in zip(names, inputs, ref_inputs, new_inputs):
            if not isinstance(orig, torch.Tensor):
                continue
            if name in spec.mutates:
                _check_same(n, r, f"call {call + 1}, mutated input {name}")
            else:
                assert _bits_equal(n, orig), f"call {call + 1}: kernel wrote into input {name}"


# --- On a CUDA GPU: every shape, held-out included, in the op's dtype and tolerance -------------


def _gpu_cases():
    if not HAS_CUDA:
        return
    for kpath in KERNELS:
        meta = read_kernel_meta(kpath)
        spec = load_op(operator_folder(SUITES, meta.op))
        for shape in spec.shapes + spec.held_out_shapes:
            yield pytest.param(kpath, spec, shape, id=f"{kpath.relative_to(ROOT)}::{shape.id}")


def _poison():
    """Fill and free a large block so fresh allocations start out as NaN, not stale results."""
    junk = torch.empty(256 * 1024 * 1024, dtype=torch.float32, device="cuda")
    junk.fill_(float("nan"))
    del junk


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_CUDA, reason="needs a CUDA device")
@pytest.mark.parametrize("kpath,spec,shape", list(_gpu_cases()) or [pytest.param(None, None, None, id="none")])
def test_kernel_matches_reference_on_gpu(kpath: Path, spec, shape):
    exact_fp32()  # as the harness's worker does: a float32 reference is IEEE float32, not TF32
    ref_mod = _import(Path(spec.reference), "gref")
    kern_mod = _import(kpath, "gkernel")
    dtype = getattr(torch, spec.dtype)
    params = dict(shape.params)
    init = ref_mod.init_kwargs(**params) if hasattr(ref_mod, "init_kwargs") else {}
    torch.manual_seed(SEED)
    ref = ref_mod.Model(**init).to(device="cuda", dtype=dtype)
    new = kern_mod.ModelNew(**init).to(device="cuda", dtype=dtype)
    new.load_state_dict(ref.state_dict(), strict=True)
    torch.manual_seed(SEED + 1)
    inputs = ref_mod.make_inputs(dtype=dtype, device="cuda", **params)
    new_inputs = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
    ref_inputs = [t.clone() if isinstance(t, torch.Tensor) else t for t in inputs]
    _poison()
    with torch.no_grad():
        got = _flatten(new(*new_inputs))
        want = _flatten(ref(*ref_inputs))
    torch.cuda.synchronize()
    tol = spec.tolerance_for(spec.dtype)
    assert len(got) == len(want), f"{len(got)} outputs, reference has {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape and g.dtype == w.dtype, f"output {i}: {g.shape}/{g.dtype} vs {w.shape}/{w.dtype}"
        if g.dtype.is_floating_point:
            g64, w64 = g.double(), w.double()
            assert not torch.isnan(g64).any(), f"output {i}: NaN"
            err = (g64 - w64).abs()
            bad = err > tol.atol + tol.rtol * w64.abs()
            assert not bad.any(), f"output {i}: {int(bad.sum())} elements off, max abs diff {err.max().item():.3g}"
        else:
            assert torch.equal(g, w), f"output {i}: integer outputs differ"
    names = list(inspect.signature(ref.forward).parameters)
    for name, orig, r, n in zip(names, inputs, ref_inputs, new_inputs):
        if isinstance(orig, torch.Tensor) and name in spec.mutates:
            assert torch.equal(n, r) or torch.allclose(n.double(), r.double(), atol=tol.atol, rtol=tol.rtol), name
        elif isinstance(orig, torch.Tensor):
            assert _bits_equal(n, orig), f"kernel wrote into input {name}"
