"""`aka profile OP CANDIDATE`: run a profiler on one shape of a candidate; `--parse FILE...`: parse
existing profiler outputs. Either way: one normalized report and a bottleneck summary."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

import typer

from aka.errors import InputError, ProfileParseError


def _parse_files(files: list[str], as_json: bool) -> None:
    """Parse every file first; print summaries or one JSON document, or fail with exit status 2."""
    from aka.cli.common import error_document, print_json
    from aka.profile.registry import parse_file

    reports, errors = [], []
    for f in files:
        try:
            reports.append(parse_file(f))
        except ProfileParseError as exc:
            errors.append(exc)
    if errors:
        for e in errors:
            typer.echo(f"error: {e}", err=True)
        if as_json:  # one document naming every file that failed
            print_json({**error_document(errors[0]), "errors": [error_document(e) for e in errors]})
        raise typer.Exit(2)
    for r in reports:
        for w in r.warnings:
            typer.echo(f"warning: {w}", err=True)
    if as_json:
        typer.echo(json.dumps({"reports": [r.to_dict() for r in reports]}, indent=1))
        return
    for f, r in zip(files, reports):
        typer.echo(f"== {f}\n{r.summary}\n")


def _run_profile(args: list[str], shape: Optional[str], tool: str, reference: bool,
                 out: Optional[Path], iters: int, as_json: bool, compiled: bool = False) -> None:
    """Profile one shape of a candidate (or of the eager reference, or of its torch.compile) in
    the sandbox and print the
    summary; exit 1 when the candidate failed under the profiler or launched no kernel."""
    from aka.cli.common import handled
    from aka.evaluate.auto_bytes import auto_bytes
    from aka.evaluate.evaluator import read_candidate
    from aka.profile.api import compulsory_bytes_of, profile
    from aka.spec.load import load_op

    with handled(as_json):
        if len(args) != 2:
            raise InputError("aka profile expects OP CANDIDATE (or --parse FILE...)")
        spec = load_op(args[0])
        read_candidate(args[1])
        sid = shape or spec.shapes[0].id
        _check_shape(spec, sid)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        what = "-eager" if reference else "-compile" if compiled else ""
        target = out or Path(".aka") / "profiles" / f"{stamp}-{spec.name}-{sid}{what}"
        outcome = profile(spec, Path(args[1]), sid, out_dir=target, tool=tool, iters=iters, reference=reference,
                          compiled=compiled, compulsory_bytes=compulsory_bytes_of(spec, sid, auto=auto_bytes))
    report = outcome.report.to_dict() if outcome.report else None
    for w in outcome.warnings:
        typer.echo(f"warning: {w}", err=True)
    if as_json:
        typer.echo(json.dumps({"ok": outcome.status == "ok", "status": outcome.status, "out_dir": outcome.out_dir,
                               "report": report, "log_tail": outcome.log_tail, "warnings": outcome.warnings},
                              indent=1, default=str))
    else:
        subject = "eager reference" if reference else "reference under torch.compile" if compiled else args[1]
        typer.echo(f"== {spec.name} shape {sid} ({subject}) via {outcome.tool}; "
                   f"files in {outcome.out_dir}\n{outcome.summary}")
    if outcome.status != "ok":
        raise typer.Exit(1)


def _check_shape(spec, sid: str) -> None:
    try:
        spec.shape(sid)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None


def register(app: typer.Typer) -> None:
    """Add the `profile` command to `app`."""

    @app.command("profile")
    def profile(
        args: Optional[list[str]] = typer.Argument(None, help="FILE... with --parse; otherwise OP CANDIDATE"),
        parse: bool = typer.Option(False, "--parse", help="parse existing profiler output files"),
        shape: Optional[str] = typer.Option(None, "--shape", help="shape id to profile (default: the first)"),
        tool: str = typer.Option("auto", "--tool", help="auto, ncu, nsys, rocprofv3 or rocprof"),
        reference: bool = typer.Option(False, "--reference", help="profile the eager reference instead"),
        compiled: bool = typer.Option(False, "--compiled", help="profile the reference under torch.compile instead"),
        out: Optional[Path] = typer.Option(None, "--out", help="folder for the profiler's files (must not exist)"),
        iters: int = typer.Option(1, "--iters", min=1, help="profiled launches (after 3 warm-ups)"),
        as_json: bool = typer.Option(False, "--json", help="print the normalized reports as one JSON document"),
    ) -> None:
        """Profile a candidate, or parse profiler outputs into a normalized report and summary."""
        if parse:
            if not args:
                from aka.cli.common import fail
                fail(InputError("--parse needs at least one FILE (ncu CSV/text/.ncu-rep, nsys stats CSV, "
                                "rocprof CSV)"), as_json)
            _parse_files(list(args), as_json)
            return
        _run_profile(list(args or []), shape, tool, reference, out, iters, as_json, compiled)
