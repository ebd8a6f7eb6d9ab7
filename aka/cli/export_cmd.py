"""`aka export SESSION [--out DIR]`: the winning kernel as a drop-in package with a custom op."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from aka.cli.common import handled, print_json


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)


def export_command(
    session: str = typer.Argument(..., help="Session folder, or its id under --sessions-dir."),
    out: Optional[Path] = typer.Option(None, "--out", help="Folder to write (default: export-<session id>)."),
    sessions_dir: Path = typer.Option(Path("sessions"), "--sessions-dir", help="Where sessions live."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document instead of lines."),
) -> None:
    """Export SESSION's winner: exit 0 when written, 1 when the session has no accepted kernel."""
    from aka.export import export
    from aka.sessions.folder import resolve

    with handled(json_out=json_out):
        exported = export(resolve(session, sessions_dir), out)
    if json_out:
        print_json({"ok": True, "out": str(exported.out), "package": exported.package, "op": exported.qualname,
                    "files": [str(f) for f in exported.files]})
    else:
        typer.echo(f"exported {exported.qualname} as {exported.out / exported.package}")
        for f in exported.files:
            typer.echo(f"  {f}")
