"""Meta-prompt evolution, the loop's side: the population of system-prompt versions in the state,
sampling one per proposal by fitness with exploration, crediting a version with the kernels it
produced, and asking the model to rewrite the weakest section of the best version.

A version's fitness is the best fitness of the correct kernels proposed with it. A section's score
is the best fitness of any version holding that exact text; the weakest section of the best
version is the one with the lowest score (never-scored counts lowest; ties: rewritten least often,
then the prompt's order).
"""

from __future__ import annotations

import math
import random
from typing import Any

from aka.propose.calls import CallLog, CallRecord, request_key
from aka.propose.metaprompt import apply_blocks, parse_blocks, rewrite_messages
from aka.spec.search import PromptVersion

TEMPERATURE = 0.1
"""Softmax temperature over log-fitness when sampling by fitness."""


def seed(sections: dict[str, str]) -> list[dict[str, Any]]:
    return [PromptVersion("p000", dict(sections)).to_dict()]


def sample(prompts: list[dict], rng: random.Random, explore: float) -> str:
    """A version id: uniform with probability `explore`; otherwise a never-used version first
    (optimism), else by softmax over log-fitness (versions without a correct kernel weigh little)."""
    if rng.random() < explore:
        return rng.choice(prompts)["id"]
    fresh = [p for p in prompts if p["uses"] == 0]
    if fresh:
        return fresh[-1]["id"]
    logs = [math.log(p["fitness"]) if p.get("fitness") else None for p in prompts]
    top = max((x for x in logs if x is not None), default=0.0)
    weights = [math.exp((x - top) / TEMPERATURE) if x is not None else math.exp(-3.0) for x in logs]
    return rng.choices([p["id"] for p in prompts], weights=weights)[0]


def credit(prompts: list[dict], pid: str | None, version: str, score: float | None) -> list[dict]:
    """The population after a kernel proposed with version PID was judged (score None: rejected)."""
    out = []
    for p in prompts:
        if p["id"] == pid:
            fit = p.get("fitness")
            if score is not None:
                fit = score if fit is None else max(fit, score)
            p = {**p, "uses": p["uses"] + 1, "candidates": p["candidates"] + [version], "fitness": fit}
        out.append(p)
    return out


def best(prompts: list[dict]) -> dict:
    return max(prompts, key=lambda p: (p.get("fitness") or 0.0, -int(p["id"][1:])))


def section_scores(prompts: list[dict], parent: dict) -> dict[str, float | None]:
    scores: dict[str, float | None] = {}
    for name, text in parent["sections"].items():
        got = [p["fitness"] for p in prompts if p["sections"].get(name) == text and p.get("fitness") is not None]
        scores[name] = max(got) if got else None
    return scores


def weakest(prompts: list[dict], parent: dict) -> str:
    scores = section_scores(prompts, parent)
    order = list(parent["sections"])
    rewrites = {name: sum(1 for p in prompts if p.get("rewritten") == name) for name in order}
    return min(order, key=lambda n: (scores[n] if scores[n] is not None else -1.0, rewrites[n], order.index(n)))


def evolve(prompts: list[dict], client: Any, log: CallLog, generation: int, results: list[dict],
           epoch: int) -> tuple[list[dict], dict[str, Any]]:
    """Ask the model to rewrite the weakest section of the best version; (population after, the
    journal event's data). A reply that cannot be applied leaves the population unchanged."""
    parent = best(prompts)
    name = weakest(prompts, parent)
    messages = rewrite_messages(parent["sections"], name, results, section_scores(prompts, parent))
    record, reused = _call(client, log, messages, epoch)
    text, why = apply_blocks(parent["sections"][name], parse_blocks(record.reply))
    data: dict[str, Any] = {"parent": parent["id"], "section": name, "llm_call": record.n, "reused": reused,
                            "tokens": record.tokens, "cost_usd": round(record.cost_usd, 6)}
    if why:
        return prompts, {**data, "created": None, "failure": why}
    version = PromptVersion(f"p{len(prompts):03d}", {**parent["sections"], name: text}, parent=parent["id"],
                            origin="rewrite", rewritten=name, diff=record.reply.strip(), generation=generation)
    return prompts + [version.to_dict()], {**data, "created": version.id, "version": version.to_dict()}


def _call(client: Any, log: CallLog, messages: list[dict[str, str]], epoch: int) -> tuple[CallRecord, bool]:
    """One recorded model call; a resumed run finds the same request in the log and reuses it."""
    key = request_key(client.model, messages)
    found = log.find(key)
    if found is not None:
        return found, True
    reply = client.complete(messages)
    record = CallRecord(n=log.next_n(), key=key, model=client.model, messages=messages, reply=reply.text,
                        prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                        cost_usd=reply.cost_usd, latency_s=reply.latency_s, attempts=reply.attempts,
                        api_base=client.api_base, purpose="meta-prompt", epoch=epoch, extraction="search/replace",
                        finish_reason=reply.finish_reason)
    log.add(record)
    return record, False
