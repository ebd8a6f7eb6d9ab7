"""Resource limits of a sandboxed process (setrlimit), as a record the parent can send."""

from __future__ import annotations

import resource
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    """What one sandboxed process (and everything it starts) may use; None: no limit."""

    cpu_s: int | None = None
    """CPU seconds (SIGXCPU past it, SIGKILL 5 s later)."""
    address_space_bytes: int | None = None
    """Virtual memory; leave None on a GPU, where CUDA reserves huge address ranges."""
    processes: int | None = 512
    """Processes and threads of the sandbox's user (effective only for a user other than root)."""
    file_bytes: int | None = 16 << 30
    """Largest file it may write (SIGXFSZ past it)."""
    open_files: int | None = 4096
    core_bytes: int = 0
    """Core dumps: none by default."""

    def apply(self) -> None:
        """Set the limits on this process; a hard limit above the current one is capped to it."""
        for name, value in ((resource.RLIMIT_CPU, self.cpu_s), (resource.RLIMIT_AS, self.address_space_bytes),
                            (resource.RLIMIT_NPROC, self.processes), (resource.RLIMIT_FSIZE, self.file_bytes),
                            (resource.RLIMIT_NOFILE, self.open_files), (resource.RLIMIT_CORE, self.core_bytes)):
            if value is None:
                continue
            _, hard = resource.getrlimit(name)
            soft = value if hard == resource.RLIM_INFINITY else min(value, hard)
            grace = soft + 5 if name == resource.RLIMIT_CPU and hard == resource.RLIM_INFINITY else soft
            resource.setrlimit(name, (soft, grace if hard == resource.RLIM_INFINITY else min(grace, hard)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Limits":
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})
