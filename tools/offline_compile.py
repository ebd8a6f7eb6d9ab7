"""Compile a Triton kernel file's launches for an NVIDIA GPU on a machine without one.

    python3 tools/offline_compile.py reference_kernels/OP/KERNEL.py [more.py ...] \
        [--shapes ID,ID | --shapes all | --shapes cpu] [--param NAME=VALUE ...] [--arch 90] [--json OUT]

Each kernel's ModelNew runs its forward at the operator's shapes on meta tensors (no data, no
device): every `fn[grid](...)` launch is recorded instead of run. Each distinct launch (function,
argument types, constexpr values, warps, stages) is then compiled through Triton's own stages for
the target (sm_90 by default) down to PTX and a cubin with the ptxas Triton ships, and ptxas
reports its registers and spills. The table says, per launch, whether it compiles and what it
costs in registers, spill bytes and shared memory: the register and occupancy facts a GPU run
would show, before any GPU time is spent. It also counts, inside the PTX's loops, barriers,
shared-memory loads and stores, and 1-2 byte global loads (`loop_stats`): where a layout
conversion or an unvectorized load repeats every trip. Nothing is timed and no kernel runs, so this checks that
a kernel builds for the card, not that it is right or fast (the interpreter tests do the first).

An operator whose make_inputs needs data (`.tolist()`, `nonzero`) builds its inputs on the CPU
first. A kernel forward that reads device data on the host cannot run on meta tensors: that shape
is reported as not recorded. Exit status: 0 when every recorded launch compiled, 1 when
one did not, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SUITES = ROOT / "suites"
# sm_90 (H100, H200) per SM: 64K 32-bit registers, 64 warps, 32 resident programs, 228 KB of shared
# memory of which the driver reserves 1 KB per program (CUDA C++ Programming Guide, compute capability 9.0)
SM90_LIMITS = {"registers": 65536, "warps": 64, "programs": 32, "shared_bytes": 233472, "reserved_shared": 1024}
LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg", "enable_fp_fusion", "launch_cooperative_grid")


@dataclass(frozen=True)
class Launch:
    """One recorded `fn[grid](...)`: what the compiler needs, and nothing of the data."""

    fn: Any = field(compare=False, hash=False)
    name: str
    signature: tuple   # (param, type) pairs, "constexpr" for compile-time ones
    constexprs: tuple  # (param, value) pairs
    options: tuple     # (option, value) pairs: warps, stages
    attrs: tuple = ()  # (param index, "D") for arguments divisible by 16


@dataclass
class Compiled:
    kernel: str
    shape: str
    function: str
    constexprs: dict
    options: dict
    ok: bool
    registers: int | None = None
    spill_store_bytes: int | None = None
    spill_load_bytes: int | None = None
    shared_bytes: int | None = None
    seconds: float = 0.0
    error: str = ""
    ptx: str = ""  # where --ptx-dir wrote this launch's PTX
    programs_per_sm: int | None = None  # resident at once, by registers, warps and shared memory (sm_90)
    loops: dict = field(default_factory=dict)  # inside the PTX's loops: barriers, shared-memory ops, 1-2 byte loads


def programs_per_sm(registers: int, warps: int, shared_bytes: int, limits: dict = SM90_LIMITS) -> int:
    """How many programs of this launch one SM holds at once: registers are allocated per warp in
    units of 256 (8 a thread), shared memory per program plus the driver's reserve."""
    per_warp = -(-max(registers, 1) // 8) * 8 * 32
    by_regs = limits["registers"] // (per_warp * warps)
    by_shared = limits["shared_bytes"] // (shared_bytes + limits["reserved_shared"])
    return max(0, min(by_regs, limits["warps"] // warps, by_shared, limits["programs"]))


def _launch_of(fn: Any, args: tuple, kwargs: dict) -> Launch:
    """The launch as Triton's own launcher would specialize it: pointer and integer arguments
    divisible by 16 carry that hint (meta tensors keep their storage offsets, so alignment is
    real), and an integer equal to 1 becomes a constant, except where the kernel's
    `do_not_specialize` / `do_not_specialize_on_alignment` say otherwise."""
    from triton.backends.compiler import BaseBackend
    from triton.runtime.jit import native_specialize_impl

    options = {k: kwargs.pop(k) for k in list(kwargs) if k in LAUNCH_OPTIONS}
    bound = inspect.signature(fn.fn).bind(*args, **kwargs)
    bound.apply_defaults()
    signature, constexprs, attrs = [], [], []
    for i, p in enumerate(fn.params):
        value = bound.arguments[p.name]
        if p.is_constexpr or value is None:
            signature.append((p.name, "constexpr"))
            constexprs.append((p.name, getattr(value, "value", value)))
            continue
        kind, key = native_specialize_impl(BaseBackend, value, bool(p.is_const), not p.do_not_specialize,
                                           not p.do_not_specialize_on_alignment)
        signature.append((p.name, kind))
        if kind == "constexpr":
            constexprs.append((p.name, key))
        elif key == "D":
            attrs.append((i, "D"))
    return Launch(fn, fn.fn.__qualname__, tuple(signature), tuple(constexprs), tuple(sorted(options.items())),
                  tuple(attrs))


def record(mod: Any, ref: Any, params: dict, dtype: Any) -> list[Launch]:
    """The launches the kernel module MOD's ModelNew makes at PARAMS (its operator's reference
    module REF makes the inputs), on meta tensors, in call order."""
    import torch
    from triton.runtime.jit import JITFunction

    launches: list[Launch] = []
    original = JITFunction.run

    def run(self, *args, grid, warmup, **kwargs):  # noqa: ARG001 - the grid is not needed to compile
        launches.append(_launch_of(self, args, dict(kwargs)))

    init = ref.init_kwargs(**params) if hasattr(ref, "init_kwargs") else {}
    JITFunction.run = run
    try:
        with torch.device("meta"):
            model = mod.ModelNew(**init)
        model = model.to(device="meta", dtype=dtype) if dtype.is_floating_point else model.to("meta")
        inputs = _meta_inputs(ref, dtype, params)
        with torch.no_grad():
            model(*inputs)
    finally:
        JITFunction.run = original
    return launches


def _meta_inputs(ref: Any, dtype: Any, params: dict) -> list:
    """The forward's inputs as meta tensors. A make_inputs that needs data itself (building a
    block table from sequence lengths, say) runs on the CPU first, and its tensors become meta."""
    import torch

    try:
        return ref.make_inputs(dtype=dtype, device="meta", **params)
    except (NotImplementedError, RuntimeError):
        torch.manual_seed(0)
        made = ref.make_inputs(dtype=dtype, device="cpu", **params)
        return [t.to("meta") if isinstance(t, torch.Tensor) else t for t in made]


def _ptxas() -> Path:
    import triton

    return Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"


def compile_launch(launch: Launch, arch: int) -> dict:
    """Triton's stages for cuda:ARCH down to PTX and a cubin, then ptxas -v on the PTX for
    registers and spills. Returns the figures; raises what the compiler raises."""
    from triton._C.libtriton import ir
    from triton.backends.compiler import GPUTarget
    from triton.backends.nvidia.compiler import CUDABackend
    from triton.compiler import ASTSource

    target = GPUTarget("cuda", arch, 32)
    backend = CUDABackend(target)
    attrs = {(i,): backend.parse_attr(key) for i, key in launch.attrs}
    src = ASTSource(launch.fn, dict(launch.signature), dict(launch.constexprs), attrs)
    opts = backend.parse_options(dict(launch.options))
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    mod = src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), context)
    stages: dict = {}
    backend.add_stages(stages, opts, src.language)
    meta: dict = {}
    ptx = ""
    for name in ("ttir", "ttgir", "llir", "ptx", "cubin"):
        mod = stages[name](mod, meta)
        if name == "ptx":
            ptx = mod
    arch_name = re.search(r"^\.target\s+(\S+)", ptx, re.M)
    with tempfile.TemporaryDirectory(prefix="aka-offline-") as tmp:
        path = Path(tmp) / "k.ptx"
        path.write_text(ptx)
        log = subprocess.run([str(_ptxas()), "-v", f"--gpu-name={arch_name.group(1) if arch_name else f'sm_{arch}'}",
                              str(path), "-o", str(Path(tmp) / "k.cubin")], capture_output=True, text=True, check=True)
    text = log.stdout + log.stderr
    regs = re.search(r"Used (\d+) registers", text)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    return {"ptx": ptx, "registers": int(regs.group(1)) if regs else None,
            "spill_store_bytes": int(spills.group(1)) if spills else None,
            "spill_load_bytes": int(spills.group(2)) if spills else None,
            "shared_bytes": meta.get("shared")}


def _parse_point(items: list[str]) -> dict:
    """--param values as `aka eval --param` reads them: bool, int, float, else the string itself
    (PRECISION=tf32x2)."""
    import typer

    from aka.cli.eval_cmd import parse_params

    try:
        return parse_params(items)
    except typer.BadParameter as exc:
        raise ValueError(str(exc)) from None


def _shapes(spec: Any, which: str) -> list:
    if which in ("all", "cpu"):
        return [s for group in spec.run_shapes(interpreter=which == "cpu") for s in group]
    try:
        return [spec.shape(w) for w in which.split(",")]
    except KeyError as exc:
        raise ValueError(f"--shapes: {exc.args[0]}") from None


def run_kernel(kernel: Path, which: str, point: dict, arch: int, seen: set,
               ptx_dir: Path | None = None) -> list[Compiled]:
    import torch

    from aka.evaluate.loading import load_module
    from aka.spec.kernel import read_kernel_meta
    from aka.spec.load import load_op, operator_folder

    meta = read_kernel_meta(kernel)
    folder = operator_folder(SUITES, meta.op)
    if folder is None:
        raise ValueError(f"{kernel}: front matter op {meta.op!r} names no operator under {SUITES}")
    spec = load_op(folder)
    dtype = getattr(torch, spec.dtype)
    ref = load_module(str(spec.reference), "offline_ref")
    mod = load_module(str(kernel.resolve()), "offline_kernel")
    for name, value in point.items():
        if not hasattr(mod, name):
            raise ValueError(f"--param {name}: {kernel} has no module constant {name}")
        setattr(mod, name, value)
    rel = str(kernel.resolve().relative_to(ROOT)) if kernel.resolve().is_relative_to(ROOT) else str(kernel)
    out: list[Compiled] = []
    for shape in _shapes(spec, which):
        try:
            launches = record(mod, ref, dict(shape.params), dtype)
        except Exception as exc:  # noqa: BLE001 - a forward that needs data is reported, not fatal
            out.append(Compiled(rel, shape.id, "(not recorded)", {}, {}, False,
                                error=" ".join(f"forward on meta tensors: {type(exc).__name__}: {exc}".split())[:300]))
            continue
        for launch in launches:
            key = (rel, launch.name, launch.signature, launch.constexprs, launch.options, launch.attrs)
            if key in seen:
                continue
            seen.add(key)
            row = Compiled(rel, shape.id, launch.name, dict(launch.constexprs), dict(launch.options), True)
            start = time.monotonic()
            try:
                figures = compile_launch(launch, arch)
                ptx = figures.pop("ptx")
                row.loops = loop_stats(ptx)
                for k, v in figures.items():
                    setattr(row, k, v)
                if arch == 90 and row.registers:
                    row.programs_per_sm = programs_per_sm(row.registers, row.options.get("num_warps", 4),
                                                          row.shared_bytes or 0)
                if ptx_dir is not None:
                    ptx_dir.mkdir(parents=True, exist_ok=True)
                    row.ptx = str(ptx_dir / f"{kernel.parent.name}.{kernel.stem}.{launch.name}.{len(seen)}.ptx")
                    Path(row.ptx).write_text(ptx)
            except Exception as exc:  # noqa: BLE001 - a launch that does not compile is the finding
                row.ok, row.error = False, " ".join(f"{type(exc).__name__}: {exc}".split())[:400]
            row.seconds = round(time.monotonic() - start, 2)
            out.append(row)
    return out


LOOP_PATTERNS = {
    "barriers": re.compile(r"\bbar\.sync\b"),
    "shared": re.compile(r"\b((ld|st)\.shared|(ldmatrix|stmatrix)\.\S*\.shared)\b"),
    "subword_loads": re.compile(r"\bld\.global(?![^\s]*\.v[248]\.)[^\s]*\.[bsu](8|16)\s"),
}
"""What loop_stats counts: a barrier or a shared-memory round trip inside a loop is where a layout
conversion usually hides (Triton moving a tensor between two thread mappings; on sm_90 often as
stmatrix/ldmatrix, which count as shared accesses too), and a scalar load of one or two bytes where a
vector load was meant."""


def loop_lines(ptx: str) -> list[str]:
    """The lines inside the PTX's loops (from a label to the branch back to it), each line once
    however many loops hold it."""
    lines = ptx.splitlines()
    labels = {m.group(1): i for i, line in enumerate(lines) if (m := re.match(r"^(\$L__BB\d+_\d+):", line))}
    inside: set[int] = set()
    for i, line in enumerate(lines):
        m = re.search(r"\bbra(?:\.uni)?\s+(\$L__BB\d+_\d+);", line)
        if m and labels.get(m.group(1), i) < i:
            inside.update(range(labels[m.group(1)], i + 1))
    return [lines[i] for i in sorted(inside)]


def loop_stats(ptx: str) -> dict:
    """LOOP_PATTERNS counted over the lines inside the PTX's loops."""
    inside = loop_lines(ptx)
    return {name: sum(1 for line in inside if pat.search(line)) for name, pat in LOOP_PATTERNS.items()}


def table(rows: list[Compiled]) -> str:
    lines = ["| kernel | shape | function | constexprs | options | compiles | registers | spill st/ld bytes | shared bytes | "
             "programs / SM (warps) | in loops: barriers / shared / 1-2 B loads | s |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        consts = ", ".join(f"{k}={v}" for k, v in r.constexprs.items())
        opts = ", ".join(f"{k}={v}" for k, v in r.options.items())
        spill = "" if r.spill_store_bytes is None else f"{r.spill_store_bytes}/{r.spill_load_bytes}"
        status = "yes" if r.ok else f"**no**: {r.error}"
        resident = ("" if r.programs_per_sm is None
                    else f"{r.programs_per_sm} ({r.programs_per_sm * r.options.get('num_warps', 4)})")
        lines.append(f"| {r.kernel} | {r.shape} | {r.function} | {consts} | {opts} | {status} | "
                     f"{'' if r.registers is None else r.registers} | {spill} | "
                     f"{'' if r.shared_bytes is None else r.shared_bytes} | {resident} | "
                     f"{' / '.join(str(r.loops[k]) for k in LOOP_PATTERNS) if r.loops else ''} | {r.seconds:g} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kernels", nargs="+", type=Path, help="Triton kernel files with front matter (reference_kernels/OP/X.py)")
    ap.add_argument("--shapes", default="all", help="'all' (the op's shapes and held-out shapes), 'cpu', or ids")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="set a module constant first, as the tuner does (repeatable)")
    ap.add_argument("--arch", type=int, default=90, help="compute capability as one number (90 = sm_90)")
    ap.add_argument("--json", type=Path, help="also write the rows here")
    ap.add_argument("--ptx-dir", type=Path, help="also write each launch's PTX into this folder")
    args = ap.parse_args(argv)
    missing = [str(k) for k in args.kernels if not k.is_file()]
    if missing:
        ap.error(f"no such kernel file: {', '.join(missing)}")
    try:
        point = _parse_point(args.param)
    except ValueError as exc:
        ap.error(str(exc))
    rows: list[Compiled] = []
    seen: set = set()
    for kernel in args.kernels:
        try:
            rows += run_kernel(kernel, args.shapes, point, args.arch, seen, args.ptx_dir)
        except ValueError as exc:
            ap.error(str(exc))
    print(table(rows))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in rows], indent=1))
    return 0 if all(r.ok for r in rows if r.function != "(not recorded)") else 1


if __name__ == "__main__":
    sys.exit(main())
