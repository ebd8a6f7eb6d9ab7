"""Helpers every command shares: error reporting with exit codes, JSON output."""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, Iterator

import typer

from aka.errors import AkaError


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Turn aka's own errors into a message on stderr and the conventional exit status."""
    try:
        yield
    except AkaError as exc:
        typer.echo(f"aka: error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    sys.stdout.flush()
