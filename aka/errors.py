"""Every exception aka raises for its own faults or for bad input.

Kernel failures (wrong answers, cheats, timeouts) are data (`EvalStatus`), never exceptions.

    AkaError                      base; `exit_code` is the CLI's exit status
    ├── InputError (2)            bad input or usage: nothing was run or changed
    │   ├── SpecError             an op.yaml, reference or kernel header is invalid (file + field)
    │   ├── CandidateError        a candidate file cannot be used at all (missing, not Python)
    │   ├── ProfileParseError     a profiler output cannot be parsed (file + what was expected)
    │   └── KnowledgeError        a knowledge-base input or index cannot be used (path + why)
    ├── EnvironmentMissing (3)    the environment lacks something (GPU, profiler, endpoint)
    └── WorkerError (1)           the evaluation worker itself failed (not the candidate)
"""

from __future__ import annotations


class AkaError(Exception):
    """Base of every aka exception; `exit_code` follows the shared CLI convention."""

    exit_code = 1


class InputError(AkaError):
    """Bad input or usage; nothing was run or changed."""

    exit_code = 2


class SpecError(InputError):
    """An operator spec, reference file or kernel header is invalid."""

    def __init__(self, path: str, field: str, message: str, line: int | None = None):
        self.path, self.field, self.line, self.message = str(path), field, line, message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: field '{field}': {message}")


class CandidateError(InputError):
    """A candidate file is missing or cannot be read as Python source."""


class ProfileParseError(InputError):
    """A profiler output file cannot be parsed."""

    def __init__(self, path: str, message: str):
        self.path, self.message = str(path), message
        super().__init__(f"{path}: {message}")


class KnowledgeError(InputError):
    """A knowledge-base document or index cannot be used (incompatible index, unreadable file)."""


class EnvironmentMissing(AkaError):
    """The environment lacks something the command needs (GPU, profiler, endpoint)."""

    exit_code = 3


class WorkerError(AkaError):
    """The evaluation worker failed for a reason that is not the candidate's fault."""

    exit_code = 1
