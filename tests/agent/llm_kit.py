"""LLM-proposer sessions for loop tests: the real graph and session folder, the LLM proposer over a
scripted 127.0.0.1 server, and a scripted evaluator keyed on the kernel's declared strategy. Also
runnable as a process that kills itself (`python -m tests.agent.llm_kit ...`)."""

import json
import re
import sys
from pathlib import Path

from aka.agent.state import LoopConfig
from aka.evaluate.harness import ScriptedEvaluator
from aka.propose.calls import CallLog
from aka.propose.chat import LiteLLMClient
from aka.propose.llm import LLMProposer
from aka.sessions.folder import SessionFolder
from aka.sessions.run import run_session
from aka.spec.load import load_op

from .loop_kit import Killer

ROOT = Path(__file__).parents[2]
SPEC = load_op(ROOT / "tests" / "propose" / "fixtures" / "rmsnorm_llm")
SHAPES = [s.id for s in SPEC.cpu_shapes + SPEC.shapes]
TIMES = {"one-row-slow": ("accepted", 10.0), "single-pass-fast": ("accepted", 5.0),
         "two-blocks": ("accepted", 9.95), "one-row-per-program": ("accepted", 10.0)}


def by_strategy(table=None):
    """A kernel's verdict from its front matter's strategy; broken or no code: an error."""
    table = table or TIMES

    def script(c):
        m = re.search(r"^strategy:\s*(\S+)", c.source, re.M)
        if m is None or "def forward(self, x: torch.Tensor) -> torch.Tensor\n" in c.source:
            return "error", {}
        status, us = table.get(m.group(1), ("accepted", 20.0 + len(m.group(1))))
        return status, {s: us for s in SHAPES}
    return script


def proposer(folder: SessionFolder, url: str, model: str = "qwen2.5-coder-32b", **kw) -> LLMProposer:
    client = LiteLLMClient(model, url, backoff_s=0.01, timeout_s=kw.pop("timeout_s", 20.0), **kw)
    return LLMProposer(client, CallLog(folder.llm_dir))


def run(root: Path, url: str, config: LoopConfig, resumed: bool = False, hooks=(), evaluator=None,
        model: str = "qwen2.5-coder-32b"):
    folder = SessionFolder(root) if resumed else SessionFolder.create(root.parent, root.name,
                                                                      {"op": {"name": SPEC.name}})
    evaluator = evaluator or ScriptedEvaluator(by_strategy())
    llm = proposer(folder, url, model)
    out = run_session(folder, SPEC, config, evaluator, llm, progress=False, resumed=resumed,
                      extra_hooks=tuple(hooks))
    return out, llm, evaluator


if __name__ == "__main__":
    root, url, kind, n = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
    hooks = [Killer(kind, n)] if kind != "none" else []
    out, _, _ = run(root, url, LoopConfig(iterations=4, stall=10), hooks=hooks)
    print(json.dumps({"finished": out.stop_reason}))
