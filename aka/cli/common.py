"""Helpers every command shares: error reporting with exit codes, JSON output, and the command
group that keeps --json's promise of one document when the command line itself is wrong."""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, Iterator

import typer
from typer.core import TyperGroup

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


UsageError = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")
"""click's UsageError as typer uses it (recent typer releases bundle their own click)."""


def wants_json(args: list[str]) -> bool:
    """Whether a command line asks for --json (before any `--`)."""
    head = args[:args.index("--")] if "--" in args else args
    return "--json" in head


def usage_document(exc: Exception) -> dict[str, Any]:
    """The `--json` document of a command line click could not parse (a UsageError: exit status 2)."""
    param = getattr(exc, "param", None)
    name = getattr(exc, "option_name", None)
    if name is None and param is not None:
        name = param.opts[0] if param.param_type_name == "option" and param.opts else param.name
    return {"ok": False, "status": "error", "exit_code": getattr(exc, "exit_code", 2), "error_type": "UsageError",
            "message": exc.format_message(), "file": None, "field": name, "line": None}


class JsonUsageGroup(TyperGroup):
    """aka's command group: under --json, a usage error found while parsing the command line
    (unknown option, missing argument, bad value, unknown command) is also one JSON document on
    stdout; click's usual message still goes to stderr, and the exit status stays 2."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        as_json = wants_json(list(args))
        try:
            ctx = super().make_context(info_name, args, parent=parent, **extra)
        except UsageError as exc:
            _usage_failure(exc, as_json)
        ctx.meta["aka.json"] = as_json
        return ctx

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            _usage_failure(exc, ctx.meta.get("aka.json", False))


def _usage_failure(exc: Exception, as_json: bool) -> None:
    """Re-raise `exc` for click to report; under --json, report it here (its usual message on
    stderr, the document on stdout) and exit with its status."""
    if not as_json:
        raise exc
    exc.show()
    print_json(usage_document(exc))
    raise typer.Exit(getattr(exc, "exit_code", 2))
