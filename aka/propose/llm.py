"""The LLM proposer: any litellm model writes the next candidate from the context's records.

Each proposal is one request built from the context alone (`prompt.build_messages`), so the same
context gives the same request: a resumed run finds it in the session's recorded calls and reuses
the reply instead of paying for it again. After a kernel that failed to compile or load, the next
proposal is one repair turn continuing that conversation with the exact error (a repair is a
candidate; a failed repair is not repaired again). A dropout starts a new conversation: no repair
crosses it, and the masked records are gone from the context the next prompt is built from.

A kernel whose front matter declares tunable parameters is judged at its defaults; once the
harness accepted it, the tuner searches its space for a few candidates before the model is asked
again (`aka/propose/handoff.py`).
"""

from __future__ import annotations

import re

from aka.propose.calls import CallLog, CallRecord, Spend, request_key
from aka.propose.chat import ChatClient
from aka.propose.extract import extract_code
from aka.propose.handoff import TUNE_POINTS, current, defaults_of, propose_point
from aka.propose.prompt import build_messages, read_reference, repair_message
from aka.spec.candidate import Candidate
from aka.spec.memory import Proposal, ProposalContext

REPAIRABLE = {"syntax", "no-model-new", "load-error", "runtime-error"}
"""Rules of a kernel that did not compile or load (Triton compiles at the first launch, so a
compile error surfaces as a runtime error)."""


class LLMProposer:
    """Proposes through a `ChatClient`, recording every call in a `CallLog`."""

    name = "llm"

    def __init__(self, client: ChatClient, log: CallLog | None = None, *, repair: bool = True,
                 tune_points: int = TUNE_POINTS):
        self.client = client
        self.log = log if log is not None else CallLog()
        self.repair = repair
        self.tune_points = tune_points
        """Points of a model kernel's declared space the tuner tries before the model is asked again."""
        self.resets = 0
        self.reused = 0

    def reset(self) -> None:
        """Dropout: the next request starts a new conversation (the context's dropout count keys it)."""
        self.resets += 1

    def spend(self) -> Spend:
        """Tokens, cost and latency of every call this session paid for (resumed runs included)."""
        s = self.log.spend()
        s.reused = self.reused
        return s

    def propose(self, ctx: ProposalContext) -> Proposal | None:
        prior = self._repair_of(ctx)
        if prior is None and self.tune_points > 0:
            handoff = current(ctx, self._source_of, self._epoch_of)
            point = propose_point(handoff, ctx, self.tune_points) if handoff else None
            if point is not None:
                return point
        if prior is not None:
            messages = prior.messages + [{"role": "assistant", "content": prior.reply}, repair_message(ctx)]
            purpose = "repair"
        else:
            messages, purpose = build_messages(ctx, read_reference(ctx.op)), "propose"
        record, reused = self._call(messages, purpose, ctx)
        cand, failure, why = self._candidate(record.reply, ctx, purpose)
        meta = {"llm_call": record.n, "reused": reused, "purpose": purpose, "tokens": record.tokens,
                "cost_usd": round(record.cost_usd, 6), "latency_s": round(record.latency_s, 3),
                "extraction": why}
        if not failure:
            untunable = defaults_of(cand.source, ctx)[1]
            if cand.params or untunable:
                meta["tunable"] = f"declares {sorted(cand.params)}" if cand.params else untunable
        return Proposal(cand, change=_change(record.reply, purpose, failure), hypothesis=cand.rationale,
                        failure=failure, meta=meta)

    # --- one call, recorded or reused --------------------------------------------------------
    def _call(self, messages: list[dict[str, str]], purpose: str, ctx: ProposalContext) -> tuple[CallRecord, bool]:
        key = request_key(self.client.model, messages)
        done = {t.candidate for t in ctx.trials}
        found = self.log.find(key)
        if found is not None and found.candidate not in done:   # paid for, never evaluated: a resumed run
            self.reused += 1
            return found, True
        reply = self.client.complete(messages)
        got = extract_code(reply.text)
        record = CallRecord(n=self.log.next_n(), key=key, model=self.client.model, messages=messages,
                            reply=reply.text, prompt_tokens=reply.prompt_tokens,
                            completion_tokens=reply.completion_tokens, cost_usd=reply.cost_usd,
                            latency_s=reply.latency_s, attempts=reply.attempts, retries=list(reply.retries),
                            api_base=self.client.api_base,
                            purpose=purpose, epoch=ctx.dropouts, extraction=got.how,
                            finish_reason=reply.finish_reason)
        record.candidate = self._candidate(reply.text, ctx, purpose)[0].hash
        self.log.add(record)
        return record, False

    def _candidate(self, reply: str, ctx: ProposalContext, purpose: str) -> tuple[Candidate, str, str]:
        """(candidate, failure reason or '', how the code was found)."""
        got = extract_code(reply)
        name = f"llm-{ctx.iteration + 1:03d}" + ("-repair" if purpose == "repair" else "")
        parent = ctx.incumbent.hash if ctx.incumbent else None
        if not got.ok:
            quoted = "\n".join("# " + line for line in reply.strip().splitlines()[:200])
            source = f"# aka: the model's reply held no usable code ({got.how})\n{quoted}\n"
            failure = (f"the reply held no usable code: {got.how}; reply with the complete file defining "
                       "class ModelNew in one ```python block")
            return Candidate(source, origin="llm", name=name, parent=parent, rationale="", family="llm"), failure, got.how
        return Candidate(got.code, defaults_of(got.code, ctx)[0], origin="llm", name=name, parent=parent,
                         rationale=_rationale(reply), family=_strategy(got.code) or "llm"), "", got.how

    # --- the tuner hand-off ------------------------------------------------------------------
    def _source_of(self, trial) -> str | None:
        """The source of a model-written candidate, from the recorded reply that gave it."""
        record = self.log.by_candidate(trial.candidate)
        got = extract_code(record.reply) if record is not None else None
        return got.code if got is not None and got.ok else None

    def _epoch_of(self, trial) -> int | None:
        record = self.log.by_candidate(trial.candidate)
        return record.epoch if record is not None else None

    # --- repair ------------------------------------------------------------------------------
    def _repair_of(self, ctx: ProposalContext) -> CallRecord | None:
        """The call to continue with a repair turn, when the last candidate needs one."""
        last, view = ctx.last, ctx.last_eval or {}
        if not self.repair or last is None or last.origin != "llm" or last.name.endswith("-repair"):
            return None
        if view.get("status") != "error" or not any(r.get("rule") in REPAIRABLE for r in view.get("rejections", [])):
            return None
        prior = self.log.by_candidate(last.hash)
        if prior is None or prior.purpose == "repair" or prior.epoch != ctx.dropouts:
            return None                                  # one repair only; a dropout ended that conversation
        return prior


def _rationale(reply: str) -> str:
    """The prose before the first code fence, in one line (what the model says it changed)."""
    head = reply.split("```", 1)[0]
    text = " ".join(head.split())
    return text[:400]


def _change(reply: str, purpose: str, failure: str) -> str:
    if failure:
        return "a reply without usable code"
    why = _rationale(reply)
    prefix = "repair: " if purpose == "repair" else ""
    return prefix + (why[:200] if why else "a new kernel (no explanation given)")


def _strategy(code: str) -> str:
    """`strategy:` from the kernel's front matter, if it declares one."""
    m = re.search(r"^strategy:\s*([\w .+-]+)$", code, re.M)
    return f"llm:{m.group(1).strip()}" if m else ""
