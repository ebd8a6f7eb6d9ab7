"""Helpers every command shares: error reporting with exit codes, JSON output."""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, Iterator

import typer

from aka.errors import AkaError, InputError


@contextlib.contextmanager
def handled(json_out: bool = False) -> Iterator[None]:
    """Turn aka's own errors (and usage errors raised in a command's body) into a message on stderr
    and the conventional exit status; with `json_out`, also into one JSON document on stdout."""
    try:
        yield
    except typer.BadParameter as exc:  # raised by a command's own checks of its options
        fail(InputError(exc.format_message()), json_out)
    except AkaError as exc:
        fail(exc, json_out)


def fail(exc: AkaError, json_out: bool = False) -> None:
    """Report `exc` (stderr; with `json_out` also its JSON document on stdout) and exit with its status."""
    typer.echo(f"aka: error: {exc}", err=True)
    if json_out:
        print_json(error_document(exc))
    raise typer.Exit(exc.exit_code) from None


def error_document(exc: AkaError) -> dict[str, Any]:
    """The `--json` document of a failure: status, exit code, error type, message and, when the
    exception carries them, the file, field and line it is about."""
    return {
        "ok": False,
        "status": "error",
        "exit_code": exc.exit_code,
        "error_type": type(exc).__name__,
        "message": str(exc),
        "file": getattr(exc, "path", None),
        "field": getattr(exc, "field", None),
        "line": getattr(exc, "line", None),
    }


def print_json(data: Any) -> None:
    """Exactly one JSON document on stdout."""
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")
    sys.stdout.flush()
