"""Where the index lives and how files are named in it; the environment is read at call time."""

from __future__ import annotations

import os
from pathlib import Path

KB_DIR_ENV = "AKA_KB_DIR"


def repo_root(start: str | Path | None = None) -> Path:
    """The nearest folder at or above `start` (default: cwd) holding pyproject.toml, else `start`."""
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return here


def default_kb_dir(explicit: str | Path | None = None) -> Path:
    """The index folder: `explicit`, else $AKA_KB_DIR, else <repository root>/.aka/kb."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get(KB_DIR_ENV)
    if env:
        return Path(env).expanduser().resolve()
    return repo_root() / ".aka" / "kb"


def source_name(path: Path, root: Path) -> str:
    """A file's name in the index: relative to the root when inside it, else absolute (POSIX)."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return absolute.as_posix()


def source_path(source: str, root: Path) -> Path:
    """Inverse of `source_name`."""
    p = Path(source)
    return p if p.is_absolute() else root / p
