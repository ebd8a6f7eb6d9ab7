"""The `aka` command: a typer app whose commands live in sibling modules."""

from __future__ import annotations

import sys

import typer

from aka.cli import batch_cmd, doctor_cmd, eval_cmd, export_cmd, kb_cmd, optimize_cmd, profile_cmd, replay_cmd
from aka.cli.common import JsonUsageGroup


def build_app() -> typer.Typer:
    app = typer.Typer(
        name="aka", cls=JsonUsageGroup, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
        help="aka: profile-driven GPU kernel optimization. Exit status: 0 positive, 1 negative, "
             "2 bad input, 3 environment missing.",
    )
    for module in (optimize_cmd, eval_cmd, profile_cmd, doctor_cmd, kb_cmd, replay_cmd, export_cmd, batch_cmd):
        module.register(app)
    return app


def main(argv: list[str] | None = None) -> None:
    app = build_app()
    app(args=argv if argv is not None else sys.argv[1:], prog_name="aka")
