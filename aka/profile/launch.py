"""How the profiler and the application it profiles are started: the isolation around them.

`SandboxLauncher` (the default where this machine gives the sandbox's namespaces) runs the whole
profiler command in `aka.sandbox`; `EnvLauncher` only scrubs the environment, and is the fallback,
with a warning, where the namespaces are missing.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Mapping, Protocol

from aka.sandbox import Limits, Sandbox, scrubbed_env

NEEDED_LAYERS = ("network", "pid", "mount", "home")
"""The sandbox's layers the profiled application should get; privileges may be kept (see
`SandboxLauncher`), and limits and die-with-parent hold everywhere."""

NVIDIA_PARAMS = "/proc/driver/nvidia/params"


class Launcher(Protocol):
    """How the profiled application is started: the isolation around it."""

    def wrap(self, argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
        """`argv` (the profiler's command line, which starts the application) with any isolation
        prefix added, and the environment to run it with; `workdir` is the only folder it writes."""
        ...


def scrub_env(environ: Mapping[str, str]) -> dict[str, str]:
    """What the GPU stack needs and no credential, with this aka importable by the driver."""
    env = scrubbed_env(dict(environ))
    root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH", "")) if p)
    return env


@dataclass(frozen=True)
class EnvLauncher:
    """No wrapping; a scrubbed copy of this process's environment (the fallback where the sandbox's
    namespaces are missing). The caller may inject its own scrubbing."""

    scrub: Callable[[dict[str, str]], dict[str, str]] = scrub_env

    def wrap(self, argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
        return list(argv), self.scrub(dict(os.environ))


@dataclass(frozen=True)
class SandboxLauncher:
    """The whole profiler command (and so the application it starts) in `aka.sandbox.Sandbox`:
    its own network, PID and mount namespaces, everything read-only but `workdir` (the profile's
    staging folder), the user's home hidden but for `expose` (the operator's files, the candidate),
    limits, a scrubbed environment, killed when aka dies.

    Privileges are kept by default: a profiler reads the GPU's hardware counters, which drivers
    restrict to admin users unless told otherwise (ncu's ERR_NVGPUCTRPERM), so the profiler and
    the candidate run as the caller. That is acceptable here but weaker: run as root, a candidate
    keeps the capabilities to undo the read-only mounts. `default_launcher` drops them (the
    candidate runs as nobody) where the NVIDIA driver opens its counters to every user.
    """

    expose: tuple[str, ...] = ()
    """Files and folders it may read even under a hidden folder (read-only, like everything)."""
    limits: Limits = field(default_factory=Limits)
    privileges: str = "keep"
    """'keep' (counters need them) or 'drop' (nobody / no capabilities)."""

    def reading(self, *paths: str | os.PathLike) -> SandboxLauncher:
        """This launcher, also exposing `paths` (read-only)."""
        return replace(self, expose=(*self.expose, *(str(p) for p in paths)))

    def sandbox(self, argv: list[str]) -> Sandbox:
        """The sandbox for `argv`: its executable's folder is exposed too (a profiler installed
        under a hidden home still runs)."""
        tool_dir = os.path.dirname(os.path.realpath(argv[0])) if argv and os.path.isabs(argv[0]) else None
        expose = (*self.expose, tool_dir) if tool_dir else self.expose
        return Sandbox(limits=self.limits, expose=expose, privileges=self.privileges)

    def wrap(self, argv: list[str], workdir: Path) -> tuple[list[str], dict[str, str]]:
        return self.sandbox(argv).wrap(argv, workdir)


def counters_open_to_all(params: str = NVIDIA_PARAMS) -> bool:
    """Whether the NVIDIA driver lets every user read the GPU's counters (RmProfilingAdminOnly: 0)."""
    try:
        with open(params) as f:
            return any(line.split(":")[0].strip() == "RmProfilingAdminOnly" and line.split(":")[1].strip() == "0"
                       for line in f if ":" in line)
    except OSError:
        return False


def default_launcher(layers: Mapping[str, bool | str] | None = None,
                     privileges: str | None = None) -> tuple[Launcher, list[str]]:
    """(the launcher, warnings): the sandbox where this machine gives its network and mount
    namespaces (a warning names any other missing layer), else the environment scrubbing alone
    with a warning. `layers` defaults to `Sandbox().layers()`; `privileges` to 'drop' where the
    counters are open to every user, else 'keep'."""
    got = dict(Sandbox().layers() if layers is None else layers)
    missing = [name for name in NEEDED_LAYERS if not got.get(name)]
    if not got.get("network") or not got.get("mount"):
        return EnvLauncher(), [f"the profiler and the candidate run without the sandbox here (missing layers: "
                               f"{', '.join(missing)}); only their environment is scrubbed (see aka doctor)"]
    warnings = [f"the profiler's sandbox lacks the layers: {', '.join(missing)} (see aka doctor)"] if missing else []
    return SandboxLauncher(privileges=privileges or ("drop" if counters_open_to_all() else "keep")), warnings


def resolve(launcher: Launcher | None, readable: list[str]) -> tuple[Launcher, list[str]]:
    """The launcher one profile runs with, and its warnings: `launcher`, or the default; either
    reading `readable` (the operator's files, the candidate) when it can be told to."""
    warnings: list[str] = []
    if launcher is None:
        launcher, warnings = default_launcher()
    reading = getattr(launcher, "reading", None)
    return (reading(*readable) if callable(reading) else launcher), warnings
