"""`Sandbox`: run a program (the evaluation worker's fork server, a profiler and the application it
profiles) in its own network, PID and mount namespaces, read-only but for one folder, with the
user's home hidden, resource limits, a scrubbed environment and no privileges; and `layers()`:
which of those layers this machine can give (probed once, by running the probe inside them).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Sequence

from aka.sandbox.env import job_env
from aka.sandbox.limits import Limits

LAYERS = ("network", "pid", "mount", "home", "privileges", "limits", "die-with-parent")
"""Every isolation layer, in the order `aka doctor` lists them:

- network: its own network namespace, loopback only (nothing can be reached);
- pid: its own PID namespace and /proc (no other process's environment or command line is
  visible, no process outside can be signalled; everything in it dies with it);
- mount: the filesystem read-only except its folder (the checkout, home and /tmp never writable);
- home: the user's home hidden (an empty folder but for what Python needs under it);
- privileges: 'nobody' (root switches to the unprivileged user) or 'no-capabilities';
- limits: CPU time, address space (CPU only), processes, file size, open files, no core dumps;
- die-with-parent: it is killed when the process that started it dies.
"""

_NAMESPACES = (
    (("--net", "--pid", "--fork", "--mount-proc", "--kill-child"), ("network", "pid", "mount")),
    (("--user", "--map-root-user", "--net", "--pid", "--fork", "--mount-proc", "--kill-child"),
     ("network", "pid", "mount")),
    (("--net", "--mount"), ("network", "mount")),
    (("--user", "--map-root-user", "--net", "--mount"), ("network", "mount")),
)
"""`unshare` options, strongest first: root needs no user namespace; elsewhere one is needed."""


def home_folders() -> list[str]:
    """Folders hidden from sandboxed processes: the user's home, and root's."""
    found = [os.path.expanduser("~"), "/root"]
    return [f for f in dict.fromkeys(found) if f not in ("/", "") and os.path.isdir(f)]


@dataclass(frozen=True)
class Sandbox:
    """How to wrap a command so it runs isolated (see LAYERS). `wrap` only builds the command
    line; nothing runs until the caller starts it."""

    limits: Limits = field(default_factory=Limits)
    expose: tuple[str, ...] = ()
    """Extra paths it may read that live under a hidden folder (e.g. the operator's reference)."""
    mask: tuple[str, ...] | None = None
    """Folders to hide; None: `home_folders()`."""
    privileges: str = "drop"
    """'drop' (nobody / no capabilities) or 'keep' (e.g. a profiler that needs counters)."""
    enabled: bool = True
    """False: no namespaces (still the scrubbed environment, limits and the parent-death signal)."""

    def layers(self) -> dict[str, bool | str]:
        """Which layers a wrapped command gets on this machine: True / a description, or False."""
        if not self.enabled:
            return {name: name in ("limits", "die-with-parent") for name in LAYERS}
        got = probe()
        if self.privileges == "keep":
            got = {**got, "privileges": False}
        return got

    def wrap(self, argv: Sequence[str], workdir: str | os.PathLike) -> tuple[list[str], dict[str, str]]:
        """(command line, environment) running `argv` in the sandbox, writable only in `workdir`."""
        workdir = os.path.realpath(workdir)
        inner = [sys.executable, "-m", "aka.sandbox.enter", "--workdir", workdir,
                 "--limits", json.dumps(self.limits.to_dict()), "--privileges", self.privileges]
        for p in self.expose:
            inner += ["--expose", os.path.realpath(p)]
        for m in self.mask if self.mask is not None else home_folders():
            inner += ["--mask", m]
        prefix = namespace_prefix() if self.enabled else ()
        if prefix:
            inner.append("--strict")
        env = job_env(dict(os.environ), workdir)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_package_root(), env.get("PYTHONPATH", "")]))
        return [*_pdeathsig(), *prefix, *inner, "--", *argv], env


def _pdeathsig() -> tuple[str, ...]:
    """A prefix that kills the wrapped command when its starter dies (util-linux setpriv)."""
    exe = shutil.which("setpriv")
    return (exe, "--pdeathsig", "KILL") if exe else ()


@lru_cache(maxsize=1)
def namespace_prefix() -> tuple[str, ...]:
    """The `unshare` command line giving the strongest namespaces here (empty: none)."""
    return probe_all()[0]


def probe() -> dict[str, bool | str]:
    """The layers a wrapped command gets here (probed once per process)."""
    return dict(probe_all()[1])


@lru_cache(maxsize=1)
def probe_all() -> tuple[tuple[str, ...], tuple[tuple[str, bool | str], ...]]:
    """Try each `unshare` variant, strongest first, with the real lock-down inside: the first
    whose probe reports back wins. AKA_NO_UNSHARE=1 pretends none works."""
    exe = shutil.which("unshare")
    base = {name: False for name in LAYERS}
    base.update({"limits": True, "die-with-parent": True})
    if not exe or os.environ.get("AKA_NO_UNSHARE"):
        return (), tuple(base.items())
    with tempfile.TemporaryDirectory(prefix="aka-probe-") as workdir:
        for options, _ in _NAMESPACES:
            prefix = (exe, *options)
            seen = _run_probe(prefix, workdir)
            if seen is None:
                continue
            layers = dict(base)
            layers.update({k: bool(seen.get(k)) for k in ("network", "pid", "mount", "home")})
            priv = seen.get("privileges")
            layers["privileges"] = priv if priv in ("nobody", "no-capabilities") else False
            return prefix, tuple(layers.items())
    return (), tuple(base.items())


def _run_probe(prefix: tuple[str, ...], workdir: str) -> dict | None:
    cmd = [*prefix, sys.executable, "-m", "aka.sandbox.enter", "--probe", "--workdir", workdir,
           *[a for m in home_folders() for a in ("--mask", m)]]
    env = job_env(dict(os.environ), workdir)
    env["PYTHONPATH"] = _package_root()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=30, env=env)
    except (OSError, subprocess.TimeoutExpired):
        return None
    try:
        seen = json.loads(out.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return None
    return None if "error" in seen else seen


def _package_root() -> str:
    return str(Path(__file__).resolve().parents[2])
