"""Isolation for processes that run candidate code: namespaces, a read-only filesystem, limits.

`Sandbox.wrap(argv, workdir)` builds the command line of a program run isolated (the fork server,
a profiler); `confine.spawn` forks an isolated child from a trusted process that already has
torch loaded; `Sandbox().layers()` says which layers this machine gives. Standard library only, so
the evaluation worker can use it on a bare GPU node.
"""

from aka.sandbox.env import scrubbed_env
from aka.sandbox.limits import Limits
from aka.sandbox.wrap import LAYERS, Sandbox

__all__ = ["LAYERS", "Limits", "Sandbox", "scrubbed_env"]
