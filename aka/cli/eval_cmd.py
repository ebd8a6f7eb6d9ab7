"""`aka eval OP CANDIDATE`: is the candidate correct, honest and fast?"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, List, Optional

import typer

from aka.cli.common import handled, print_json
from aka.cli.render import render_eval


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)


def eval_command(
    op: Path = typer.Argument(..., help="Folder with op.yaml, an op.yaml, or a KernelBench problem file."),
    candidate: Path = typer.Argument(..., help="Python file defining class ModelNew."),
    shape: Optional[List[str]] = typer.Option(None, "--shape", help="Only these visible shape ids (held-out shapes always run)."),
    device: str = typer.Option("auto", help="auto, cuda or cpu (cpu: Triton interpreter, correctness only)."),
    trials: int = typer.Option(3, min=3, help="Correctness trials per shape (at least 3)."),
    seed: int = typer.Option(0, help="Base seed of the random inputs."),
    timeout: Optional[float] = typer.Option(None, help="Time limit of the whole evaluation, seconds."),
    no_time: bool = typer.Option(False, "--no-time", help="Check correctness and honesty only."),
    baseline: Optional[List[str]] = typer.Option(None, "--baseline", help="Baselines to time: eager, torch.compile, production (default: the spec's)."),
    reps: int = typer.Option(100, min=50, help="Timed repetitions per measurement (at least 50)."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document instead of tables."),
    param: Optional[List[str]] = typer.Option(None, "--param", help="NAME=VALUE: set a module-level constant of the "
                                               "candidate before it runs (a parameter point; repeat for several)."),
) -> None:
    """Evaluate CANDIDATE against OP: exit 0 when accepted, 1 when rejected."""
    from aka.evaluate.evaluator import EvalOptions, Evaluator, detect_device
    from aka.evaluate.pool import WorkerPool
    from aka.spec.load import load_op

    with handled(json_out):
        if device not in ("auto", "cuda", "cpu"):
            raise typer.BadParameter(f"--device must be auto, cuda or cpu, not {device!r}")
        spec = load_op(op)
        for b in baseline or []:
            if b not in ("eager", "torch.compile", "production"):
                raise typer.BadParameter(f"--baseline must be eager, torch.compile or production, not {b!r}")
            if b == "production" and spec.production is None:
                raise typer.BadParameter(f"--baseline production: {spec.path} names no production baseline "
                                         "(op.yaml production:)")
        options = EvalOptions(shapes=tuple(shape or ()), trials=trials, seed=seed, timeout_s=timeout,
                              time=not no_time, baselines=tuple(baseline) if baseline else None, reps=reps)
        with tempfile.TemporaryDirectory(prefix="aka-eval-") as tmp, WorkerPool(detect_device(device)) as pool:
            point = parse_params(param or [])
            run = with_params(candidate, point, Path(tmp)) if point else candidate
            result = Evaluator(pool).evaluate(spec, run, options)
            if point:
                result = as_run_from(result, Path(run), Path(candidate), point)
    if json_out:
        print_json(result.to_dict())
    else:
        render_eval(result)
    raise typer.Exit(0 if result.accepted else 1)


def parse_params(items: list[str]) -> dict[str, Any]:
    """`--param NAME=VALUE` items as a parameter point: VALUE an int, a float, true/false, else a string."""
    point: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise typer.BadParameter(f"--param {item!r}: expected NAME=VALUE with NAME a Python identifier")
        point[name] = _value(text.strip())
    return point


def _value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def with_params(candidate: Path, point: dict[str, Any], folder: Path) -> Path:
    """The candidate's source with the parameter point applied, written under FOLDER by its own name
    (an unknown constant is a CandidateError naming it: exit 2, nothing run)."""
    from aka.evaluate.evaluator import read_candidate
    from aka.spec.candidate import Candidate

    source, _ = read_candidate(candidate)
    out = folder / Path(candidate).name
    out.write_text(Candidate(source=source, params=point, name=str(candidate)).materialize())
    return out


def as_run_from(result: Any, run: Path, candidate: Path, point: dict[str, Any]) -> Any:
    """RESULT of the temporary copy RUN, told as the candidate's own: its path in place of the copy's
    (the copy keeps the candidate's line numbers), and the parameter point in the notes."""
    from dataclasses import replace

    tmp, own = str(run.resolve()), str(candidate.resolve())
    rejections = [replace(r, file=own if r.file == tmp else r.file, message=r.message.replace(tmp, own))
                  for r in result.rejections]
    note = "parameter point " + ", ".join(f"{k}={v!r}" for k, v in point.items()) + f" applied to {candidate}"
    return replace(result, candidate=own, rejections=rejections, notes=[*result.notes, note])
