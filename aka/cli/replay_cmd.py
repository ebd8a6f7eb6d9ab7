"""`aka replay SESSION`: what a session did, from its files alone (TUI, text, JSON, HTML, re-run)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from aka.cli.common import handled, print_json


def register(app: typer.Typer) -> None:
    app.command("replay")(replay_command)


def replay_command(
    session: str = typer.Argument(..., help="Session folder, or its id under --sessions-dir."),
    sessions_dir: Path = typer.Option(Path("sessions"), "--sessions-dir", help="Where sessions live."),
    print_out: bool = typer.Option(False, "--print", help="Print the story as text (for logs and CI)."),
    full_calls: bool = typer.Option(False, "--calls", help="With --print: each model call's prompt and reply in full."),
    json_out: bool = typer.Option(False, "--json", help="Print the normalized event list as one JSON document."),
    html_out: Optional[Path] = typer.Option(None, "--html", help="Write a self-contained HTML page to this file."),
    rerun: bool = typer.Option(False, "--rerun", help="Re-evaluate the recorded candidates on this machine."),
    from_version: Optional[str] = typer.Option(None, "--from", help="With --rerun: start at this version (vNNN)."),
    device: str = typer.Option("auto", "--device", help="With --rerun: auto, cuda or cpu."),
    follow: bool = typer.Option(True, "--follow/--no-follow", help="TUI: keep reading a session that is running."),
) -> None:
    """Replay SESSION: the interactive inspector, or --print / --json / --html / --rerun. Exit 0 when
    everything could be read (for --rerun: every verdict held), 1 when something is missing."""
    from aka.replay import load

    with handled(json_out=json_out):
        root = _resolve(session, sessions_dir)
        if from_version and not rerun:
            raise typer.BadParameter("--from goes with --rerun")
        if full_calls and not print_out:
            raise typer.BadParameter("--calls goes with --print")
        view = load.load(root)
        if rerun:
            _rerun(view, from_version, device, json_out)
            return
        if html_out is not None:
            from aka.replay import html

            path = html.write(view, html_out)
            if not json_out and not print_out:
                typer.echo(f"wrote {path}")
        if json_out:
            from aka.replay.story import document

            print_json(document(view))
        elif print_out:
            from aka.replay.text import render

            typer.echo(render(view, full_calls), nl=False)
        elif html_out is None:
            from aka.replay.tui import run_tui

            run_tui(root, follow=follow)
            return
    raise typer.Exit(1 if view.problems else 0)


def _resolve(session: str, sessions_dir: Path) -> Path:
    from aka.errors import InputError

    p = Path(session)
    for candidate in (p, sessions_dir / session):
        if candidate.is_dir() and ((candidate / "session.json").exists() or (candidate / "events.jsonl").exists()):
            return candidate
    raise InputError(f"{session}: no session folder (looked at {p} and {sessions_dir / session}; "
                     "a session folder holds session.json and events.jsonl)")


def _rerun(view, from_version: Optional[str], device: str, json_out: bool) -> None:
    from aka.replay.rerun import render_rows, rerun

    if device not in ("auto", "cuda", "cpu"):
        raise typer.BadParameter(f"--device must be auto, cuda or cpu, not {device!r}")
    report = rerun(view, from_version=from_version, device=device)
    if json_out:
        print_json(report.to_dict())
    else:
        typer.echo(render_rows(report), nl=False)
    raise typer.Exit(0 if report.ok else 1)
