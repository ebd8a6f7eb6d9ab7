"""A map-elites session for loop tests: the real graph, session folder and tuner over the shipped
rmsnorm kernels, judged by a scripted evaluator (times from the candidate's hash). Also runnable
as a process that kills itself (`python -m tests.agent.qd_kit ROOT LOG KIND N`)."""

import hashlib
import json
import sys
from pathlib import Path

from aka.agent.state import LoopConfig
from aka.propose.qd_tuner import QDTuner
from aka.sessions.folder import SessionFolder
from aka.sessions.run import run_session

from aka.evaluate.harness import ScriptedEvaluator

from .loop_kit import SHAPES, SPEC, Killer

ROOT = Path(__file__).parents[2]
SEARCH = {"islands": 2, "migrate_every": 1, "combine_every": 2}


def times(candidate):
    """Every kernel accepted, at a time fixed by its content (a dispatcher is fastest)."""
    h = int(hashlib.sha256(candidate.hash.encode()).hexdigest()[:6], 16)
    us = 3.0 if candidate.origin == "dispatcher" else 5.0 + (h % 1000) / 100.0
    return "accepted", {s: us * (1.0 + 0.1 * i) for i, s in enumerate(SHAPES)}


class HashLog(ScriptedEvaluator):
    """Appends every completed evaluation's candidate hash to a file (survives the process)."""

    def __init__(self, log: Path):
        super().__init__(times)
        self.log = log

    def evaluate(self, spec, candidate, path):
        result = super().evaluate(spec, candidate, path)
        with open(self.log, "a") as f:
            f.write(candidate.hash + "\n")
        return result


def config(iterations: int = 8, **search) -> LoopConfig:
    return LoopConfig(iterations=iterations, stall=50, strategy="map-elites", search={**SEARCH, **search})


def run(root: Path, log: Path, cfg: LoopConfig, resumed: bool = False, hooks=()):
    folder = SessionFolder(root) if resumed else SessionFolder.create(root.parent, root.name, {"op": {"name": "rmsnorm"}})
    evaluator = HashLog(log)
    tuner = QDTuner([ROOT / "reference_kernels"], source_root=ROOT)
    return run_session(folder, SPEC, cfg, evaluator, tuner, progress=False, resumed=resumed, extra_hooks=tuple(hooks))


if __name__ == "__main__":
    root, log, kind, n = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    out = run(root, log, config(), hooks=[Killer(kind, n)])
    print(json.dumps({"finished": out.stop_reason}))
