"""A scripted session for loop tests: candidates with scripted verdicts and times, the real graph,
the real session folder. Also runnable as a process that kills itself (`python -m ...`)."""

import json
import os
import signal
import sys
from pathlib import Path

from aka.agent.state import LoopConfig
from aka.evaluate.harness import ScriptedEvaluator
from aka.propose.scripted import ScriptedProposer
from aka.sessions.folder import SessionFolder
from aka.sessions.run import run_session
from aka.spec.candidate import Candidate
from aka.spec.load import load_op

ROOT = Path(__file__).parents[2]
SPEC = load_op(ROOT / "suites" / "llm-inference" / "rmsnorm")
SHAPES = [s.id for s in SPEC.cpu_shapes]


def cand(tag: str) -> Candidate:
    return Candidate(source=f"# {tag}\nclass ModelNew: pass\n", origin="user", name=tag, family=f"fam-{tag[0]}")


def script_from(table: dict[str, tuple[str, float]]):
    """tag -> (status, time at every shape)."""
    def script(c: Candidate):
        status, us = table[c.name]
        return status, {s: us for s in SHAPES}
    return script


class Killer:
    """Kills this process (SIGKILL) at the n-th event of a kind: a crash at a chosen point."""

    def __init__(self, kind: str, n: int):
        self.kind, self.n, self.seen = kind, n, 0

    def emit(self, kind, data):
        if kind == self.kind:
            self.seen += 1
            if self.seen == self.n:
                os.kill(os.getpid(), signal.SIGKILL)


class LoggingEvaluator(ScriptedEvaluator):
    """Appends every completed evaluation's candidate name to a file (survives the process)."""

    def __init__(self, script, log: Path):
        super().__init__(script)
        self.log = log

    def evaluate(self, spec, candidate, path, focus=()):
        result = super().evaluate(spec, candidate, path, focus)
        with open(self.log, "a") as f:
            f.write(candidate.name + "\n")
        return result


class BatchingProposer(ScriptedProposer):
    """The scripted proposer, declared able to propose several candidates at once (as the tuner)."""

    batches = True


class BatchEvaluator(LoggingEvaluator):
    """Evaluates a batch in `evaluate_many`, finishing in reverse order (as side pools may), and
    records each batch's names. With KILL_AFTER=n it SIGKILLs this process once the loop has
    stored its n-th batched result (a crash in the middle of a batch)."""

    def __init__(self, script, log: Path, kill_after: int = 0):
        super().__init__(script, log)
        self.batches: list[list[str]] = []
        self.kill_after, self.done = kill_after, 0

    def evaluate_many(self, spec, items):
        self.batches.append([c.name for c, *_ in items])
        for i in reversed(range(len(items))):
            yield i, self.evaluate(spec, *items[i])
            self.done += 1                           # the loop stored the result before asking again
            if self.done == self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)


TABLE = {"a1": ("accepted", 10.0), "b2": ("wrong", 1.0), "c3": ("accepted", 9.95), "d4": ("accepted", 5.0),
         "e5": ("accepted", 6.0), "f6": ("accepted", 4.0)}
ORDER = ["a1", "b2", "c3", "d4", "e5", "f6"]


def run(root: Path, log: Path, config: LoopConfig, resumed: bool, hooks=(), order=tuple(ORDER), proposer=None,
        evaluator=None):
    folder = SessionFolder(root) if resumed else SessionFolder.create(root.parent, root.name, {"op": {"name": "rmsnorm"}})
    if evaluator is None:
        evaluator = BatchEvaluator(script_from(TABLE), log) if config.parallel > 1 else \
            LoggingEvaluator(script_from(TABLE), log)
    proposer = proposer or (BatchingProposer if config.parallel > 1 else ScriptedProposer)([cand(t) for t in order])
    return run_session(folder, SPEC, config, evaluator, proposer, progress=False, resumed=resumed,
                       extra_hooks=tuple(hooks))


if __name__ == "__main__":
    root, log, kind, n = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    parallel = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    config = LoopConfig(iterations=6, stall=5, parallel=parallel)
    if kind == "batched":                            # killed inside a batch, between two results
        evaluator, hooks = BatchEvaluator(script_from(TABLE), log, kill_after=n), []
    else:
        evaluator, hooks = None, [Killer(kind, n)]
    out = run(root, log, config, resumed=False, hooks=hooks, evaluator=evaluator)
    print(json.dumps({"finished": out.stop_reason}))
