"""`aka export SESSION`: the winning kernel as a drop-in package — the kernel and ModelNew, a
torch.library custom op with the reference's signature and a fake implementation, a pytest file
against the reference on the operator's shapes, and a README naming device, speedups and session."""

from __future__ import annotations

import inspect
import json
import re
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aka.errors import AkaError, InputError
from aka.export import templates
from aka.replay.load import SessionView, load
from aka.spec.op import DEFAULT_TOLERANCE, OpSpec
from aka.spec.result import speedup_text


class NothingToExport(AkaError):
    """The session holds no accepted kernel (exit 1)."""

    exit_code = 1


@dataclass
class Exported:
    """What `export` wrote."""

    out: Path
    package: str
    qualname: str
    files: list[Path]


def export(session: str | Path, out: Path | None = None) -> Exported:
    view = load(session)
    version = _winner(view)
    spec = _spec(view)
    if spec.form not in ("op.yaml", "kernelbench"):
        raise InputError(f"{spec.path}: export supports op.yaml and KernelBench operators, not the {spec.form} form")
    name = _identifier(spec.name)
    package = f"aka_{name}"
    out = Path(out) if out else Path(f"export-{view.id}")
    if out.resolve().is_relative_to(view.root.resolve()):
        raise InputError(f"{out}: export never writes into the session folder; choose --out outside {view.root}")
    pkg = out / package
    pkg.mkdir(parents=True, exist_ok=True)
    sig = _signature(spec)
    qualname = f"aka::{name}"
    fields = {"session": view.id, "package": package, "qualname": qualname, "namespace": "aka", "opname": name,
              "op": spec.name, "form": spec.form, **sig}
    files = [_write(pkg / "kernel.py", _kernel_text(view, version)),
             _copy(Path(spec.reference), pkg / "reference.py"),
             _write(pkg / "op.py", templates.OP_PY.format(**fields)),
             _write(pkg / "__init__.py", templates.INIT_PY.format(**fields)),
             _write(pkg / "shapes.json", json.dumps(_shapes(spec), indent=1)),
             _write(out / f"test_{package}.py", templates.TEST_PY.format(**fields)),
             _write(out / "README.md", _readme(view, version, spec, package, qualname, sig))]
    return Exported(out, package, qualname, files)


def _winner(view: SessionView) -> str:
    best = view.best
    if best is None:
        raise NothingToExport(f"{view.root}: the session has no accepted kernel (best/VERSION is missing): "
                              "nothing to export")
    v = view.versions.get(best)
    if v is None or v.source is None:
        raise NothingToExport(f"{view.root}: the winner {best} has no candidate.py in candidates/{best}/")
    if v.eval is None or not v.eval.accepted:
        raise NothingToExport(f"{view.root}: the winner {best} has no accepted evaluation record")
    confirmed = _confirmed_status(view.root, best)
    if confirmed not in (None, "accepted"):
        raise NothingToExport(f"{view.root}/candidates/{best}/confirmed.json: the winner {best} was {confirmed} "
                              "when evaluated again at the end of the session: nothing to export")
    return best


def _confirmed_status(root: Path, version: str) -> str | None:
    """The status of the winner's end-of-session evaluation, None where the session made none."""
    from aka.sessions.folder import SessionFolder

    result = SessionFolder(root).get_confirmed(version)
    return result.status.value if result is not None else None


def _spec(view: SessionView) -> OpSpec:
    from aka.spec.load import load_op

    path = view.spec_path()
    if not path:
        raise InputError(f"{view.root}/session.json: names no operator path")
    return load_op(path)


def _identifier(name: str) -> str:
    ident = re.sub(r"\W", "_", name).strip("_").lower() or "op"
    return f"op_{ident}" if ident[0].isdigit() else ident


def _signature(spec: OpSpec) -> dict[str, Any]:
    """The reference forward's arguments with their custom-op types, and its parameter names,
    learned from the reference on the meta device (nothing is allocated)."""
    import torch

    from aka.evaluate.loading import load_module

    ref = load_module(spec.reference, "export")
    names = [p for p in inspect.signature(ref.Model.forward).parameters if p != "self"]
    shape = (spec.cpu_shapes or spec.shapes)[0]
    with torch.device("meta"):
        if spec.form == "kernelbench":
            args, kwargs, inputs = list(ref.get_init_inputs()), {}, list(ref.get_inputs())
        else:
            fn = getattr(ref, "init_kwargs", None)
            args, kwargs = [], dict(fn(**_accepted(fn, shape.params))) if fn else {}
            inputs = list(ref.make_inputs(**_accepted(ref.make_inputs, {**shape.params, "dtype": torch.float32,
                                                                         "device": torch.device("meta")})))
        model = ref.Model(*args, **kwargs)
        out = model(*inputs)
    types = [_type_of(v) for v in inputs]
    returns = "torch.Tensor" if isinstance(out, torch.Tensor) else "list[torch.Tensor]"
    return {"arg_names": names, "param_names": list(model.state_dict()),
            "signature": ", ".join(f"{n}: {t}" for n, t in zip(names, types)),
            "call_args": ", ".join(names), "returns": returns}


def _accepted(fn, kwargs: dict[str, Any]) -> dict[str, Any]:
    sig = inspect.signature(fn)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return dict(kwargs)
    return {k: v for k, v in kwargs.items() if k in sig.parameters}


def _type_of(value: Any) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return "torch.Tensor"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, (list, tuple)) and all(isinstance(v, torch.Tensor) for v in value):
        return "list[torch.Tensor]"
    raise InputError(f"export: a forward input of type {type(value).__name__} has no custom-op type")


def _shapes(spec: OpSpec) -> dict[str, Any]:
    def rows(shapes):
        return [{"id": s.id, "params": s.params} for s in shapes]

    tol = {dt: list((spec.tolerance.atol, spec.tolerance.rtol) if spec.tolerance else DEFAULT_TOLERANCE.get(dt, (1e-4, 1e-4)))
           for dt in {spec.dtype, "float32"}}
    return {"op": spec.name, "dtype": spec.dtype, "shapes": rows(spec.shapes + spec.held_out_shapes),
            "cpu_shapes": rows(spec.cpu_shapes + spec.cpu_held_out_shapes), "tolerance": tol}


def _kernel_text(view: SessionView, version: str) -> str:
    src = view.versions[version].source or ""
    return f"# The winning kernel ({version}) of aka session {view.id}, exported by `aka export`.\n" + src


def _readme(view: SessionView, version: str, spec: OpSpec, package: str, qualname: str, sig: dict) -> str:
    v = view.versions[version]
    result = v.eval
    dev = view.device
    device = "CPU (Triton interpreter)" if result.mode != "gpu" else (dev.get("name") or "GPU")
    lines = [f"# {package}: {spec.name}", "",
             f"The winning kernel `{version}` ({v.candidate.name if v.candidate else '?'}) of aka session "
             f"`{view.id}` (`{view.root.resolve()}`), measured on {device}, dtype {result.dtype}.", ""]
    if result.mode == "gpu":
        lines += ["| shape | time µs | " + " | ".join(f"× {n}" for n in spec.baselines) + " | SOL |",
                  "|---|---|" + "---|" * len(spec.baselines) + "---|"]
        for s in result.shapes:
            if s.held_out or not s.time:
                continue
            sol = f"{s.roofline.sol:.3f}" if s.roofline and s.roofline.sol is not None else "n/a"
            lines.append(f"| {s.id} | {s.time.median_us:.2f} | "
                         + " | ".join(speedup_text(s.speedup.get(n)) for n in spec.baselines)
                         + f" | {sol} |")
    else:
        lines.append("It was measured on the CPU interpreter: correctness only, no speedup is claimed.")
    env = view.meta.get("environment") or {}
    lines += ["", f"aka {env.get('aka', '?')} at commit {env.get('git_commit') or '?'}; torch {env.get('torch', '?')}, "
              f"triton {env.get('triton', '?')}.", "", "## Use", "", "```python",
              f"from {package} import Op            # drop-in for the reference Model (same constructor and state dict)",
              f"model = Op(...).cuda()                # then model({sig['call_args']})",
              f"# or call the custom op directly: torch.ops.{qualname.replace('::', '.')}({sig['call_args']}, "
              "params, init)", "```", "",
              f"`{qualname}` is a `torch.library.custom_op` with a fake implementation (the reference run on fake "
              "tensors), so `torch.compile(fullgraph=True)` traces through it.", "", "## Test", "", "```",
              f"python -m pytest test_{package}.py -q     # on a CPU machine Triton's interpreter runs it in float32",
              "```", ""]
    return "\n".join(lines)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _copy(src: Path, dst: Path) -> Path:
    shutil.copyfile(src, dst)
    return dst
