"""The scripted OpenAI-compatible server for the LLM proposer's tests (the package's fake), with the
tests' fixed token counts (1200 prompt, 400 completion) unless a step says otherwise."""

from aka.propose.scripted_server import ScriptedServer, Step  # noqa: F401
from aka.propose.scripted_server import error  # noqa: F401

USAGE = {"prompt_tokens": 1200, "completion_tokens": 400}


def reply(text: str, **kw) -> Step:
    return Step(text=text, **{**USAGE, **kw})


def slow(text: str, delay_s: float, **kw) -> Step:
    return Step(text=text, delay_s=delay_s, **{**USAGE, **kw})
