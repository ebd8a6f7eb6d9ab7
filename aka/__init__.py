"""aka: an autonomous, profile-driven GPU kernel-optimization agent.

Nothing runs at import. The parts live in subpackages, dependencies running one way:
spec <- hardware <- {evaluate, profile, knowledge, propose} <- agent <- sessions <- batch <- cli.
"""

__version__ = "0.1.0"
