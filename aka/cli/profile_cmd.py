"""`aka profile`: parse existing profiler outputs (`--parse FILE...`); running a profiler comes later."""

from __future__ import annotations

import json
from typing import Optional

import typer

from aka.errors import ProfileParseError


def _parse_files(files: list[str], as_json: bool) -> None:
    """Parse every file first; print summaries or one JSON document, or fail with exit status 2."""
    from aka.profile.registry import parse_file

    reports, errors = [], []
    for f in files:
        try:
            reports.append(parse_file(f))
        except ProfileParseError as exc:
            errors.append(str(exc))
    if errors:
        for e in errors:
            typer.echo(f"error: {e}", err=True)
        raise typer.Exit(2)
    if as_json:
        typer.echo(json.dumps({"reports": [r.to_dict() for r in reports]}, indent=1))
        return
    for f, r in zip(files, reports):
        typer.echo(f"== {f}\n{r.summary}\n")


def register(app: typer.Typer) -> None:
    """Add the `profile` command to `app`."""

    @app.command("profile")
    def profile(
        args: Optional[list[str]] = typer.Argument(None, help="FILE... with --parse; otherwise OP CANDIDATE"),
        parse: bool = typer.Option(False, "--parse", help="parse existing profiler output files"),
        as_json: bool = typer.Option(False, "--json", help="print the normalized reports as one JSON document"),
    ) -> None:
        """Profile a candidate, or parse profiler outputs into a normalized report and summary."""
        if parse:
            if not args:
                typer.echo("error: --parse needs at least one FILE (ncu CSV/text/.ncu-rep, nsys stats CSV, "
                           "rocprof CSV)", err=True)
                raise typer.Exit(2)
            _parse_files(list(args), as_json)
            return
        typer.echo("error: running a profiler is not built yet; use 'aka profile --parse FILE...'", err=True)
        raise typer.Exit(2)
