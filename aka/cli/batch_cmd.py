"""`aka batch SUITE`, `aka report RUN` and `aka compare RUN_A RUN_B`: whole suites, scored."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from aka.cli.common import handled, print_json


def register(app: typer.Typer) -> None:
    app.command("batch")(batch_command)
    app.command("report")(report_command)
    app.command("compare")(compare_command)


def batch_command(
    suite: Optional[Path] = typer.Argument(None, help="A suite folder: op.yaml operators, a KernelBench checkout "
                                                      "or level folder, or an Atrex-Bench checkout (optional with --resume)."),
    mode: str = typer.Option("optimize", "--mode", help="optimize (a session per operator) or eval (a candidate "
                                                        "per operator from --candidates)."),
    candidates: Optional[Path] = typer.Option(None, "--candidates", help="eval mode: folder with <op>.py or "
                                                                          "<op>/candidate.py per operator."),
    iterations: Optional[int] = typer.Option(None, "--iterations", min=1, help="Candidates per operator (optimize)."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", min=0.1, help="Minutes per operator (optimize)."),
    model: Optional[str] = typer.Option(None, "--model", help="A litellm model string for the LLM proposer "
                                                              "(default: the embedded tuner)."),
    gpus: Optional[str] = typer.Option(None, "--gpus", help="GPU indices, e.g. 0,1 (default: every visible GPU)."),
    device: str = typer.Option("auto", "--device", help="auto, cuda or cpu (cpu: Triton-interpreter workers)."),
    cpu_workers: int = typer.Option(2, "--cpu-workers", min=1, max=8, help="Interpreter workers without a GPU."),
    ray_address: Optional[str] = typer.Option(None, "--ray-address", help="Run the operators as Ray tasks of "
                                                                          "one GPU each on this cluster."),
    resume: Optional[str] = typer.Option(None, "--resume", help="Continue the run RUN (folder or id): finished "
                                                                "operators are kept, the rest run."),
    sessions_dir: Path = typer.Option(Path("sessions"), "--sessions-dir", help="Where runs live."),
    kb: str = typer.Option("none", "--kb", help="Knowledge base of each optimize session: none, memory, chroma, auto."),
    eval_timeout: Optional[float] = typer.Option(None, "--eval-timeout", min=10.0,
                                                 help="Seconds one evaluation may take."),
    seed: int = typer.Option(0, "--seed", help="Seed of inputs and search."),
    ops: Optional[str] = typer.Option(None, "--ops", help="Only these operators of the suite, e.g. "
                                                          "rmsnorm,softmax (a new run; the scores cover them alone)."),
    json_out: bool = typer.Option(False, "--json", help="Print the scoreboard as one JSON document."),
) -> None:
    """Run a whole suite (or --ops of it): exit 0 when every operator finished, 1 when some errored."""
    from aka.batch.run import BatchRequest, run_batch

    with handled(json_out):
        if device not in ("auto", "cuda", "cpu"):
            raise typer.BadParameter(f"--device must be auto, cuda or cpu, not {device!r}")
        if kb not in ("none", "memory", "chroma", "auto"):
            raise typer.BadParameter(f"--kb must be none, memory, chroma or auto, not {kb!r}")
        if suite is None and resume is None:
            raise typer.BadParameter("give SUITE, or --resume RUN")
        req = BatchRequest(suite=str(suite) if suite else None, mode=mode, candidates=str(candidates) if candidates else None,
                           iterations=iterations, time_limit_min=time_limit, gpus=_gpus(gpus), cpu_workers=cpu_workers,
                           device=device, ray_address=ray_address, resume=resume, sessions_dir=sessions_dir, kb=kb,
                           model=model, eval_timeout_s=eval_timeout, seed=seed, progress=not json_out,
                           ops=None if ops is None else [x.strip() for x in ops.split(",") if x.strip()])
        out = run_batch(req)
    if json_out:
        print_json({**out.scoreboard, "ok": out.ok, "run": str(out.run)})
    else:
        from aka.batch.report import scoreboard_text

        typer.echo(f"run {out.run}")
        typer.echo(scoreboard_text(out.scoreboard))
    raise typer.Exit(0 if out.ok else 1)


def report_command(
    run: str = typer.Argument(..., help="A batch run folder (or its id under --sessions-dir)."),
    sessions_dir: Path = typer.Option(Path("sessions"), "--sessions-dir", help="Where runs live."),
    json_out: bool = typer.Option(False, "--json", help="Print where the report went as one JSON document."),
) -> None:
    """Write RUN's report.md and report.html with plots."""
    from aka.batch.folder import RunFolder, resolve_run
    from aka.batch.report import write_report

    with handled(json_out):
        folder = RunFolder(resolve_run(run, sessions_dir))
        written = write_report(folder)
    if json_out:
        print_json({"ok": True, **{k: str(v) if isinstance(v, Path) else v for k, v in written.items()}})
    else:
        typer.echo(f"report: {written['markdown']}\nhtml:   {written['html']}")


def compare_command(
    run_a: str = typer.Argument(..., help="The first batch run."),
    run_b: str = typer.Argument(..., help="The second batch run."),
    sessions_dir: Path = typer.Option(Path("sessions"), "--sessions-dir", help="Where runs live."),
    json_out: bool = typer.Option(False, "--json", help="Print the comparison as one JSON document."),
) -> None:
    """Set two runs' scoreboards side by side (suite scores, then operator by operator)."""
    from aka.batch.compare import compare, compare_text
    from aka.batch.folder import RunFolder, resolve_run

    with handled(json_out):
        a, b = (RunFolder(resolve_run(r, sessions_dir)) for r in (run_a, run_b))
        result = compare(a, b)
    if json_out:
        print_json({"ok": True, **result})
    else:
        typer.echo(compare_text(result))


def _gpus(text: str | None) -> list[int] | None:
    if text is None:
        return None
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise typer.BadParameter(f"--gpus takes GPU indices such as 0,1, not {text!r}") from None
    if not out or any(i < 0 for i in out):
        raise typer.BadParameter(f"--gpus takes GPU indices such as 0,1, not {text!r}")
    return out
