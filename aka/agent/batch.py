"""Batches (`aka optimize --parallel`): several proposals asked at once, evaluated side by side by a
harness that can (`evaluate_many`), each result stored as soon as it is ready."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from aka.agent.deps import Deps
from aka.agent.state import AgentState
from aka.spec.candidate import Candidate
from aka.spec.memory import Proposal, ProposalContext, Trial
from aka.spec.result import EvalResult, EvalStatus, Rejection


def batch_size(state: AgentState, deps: Deps) -> int:
    """How many candidates to propose at once: `--parallel`, within the candidate budget, for a
    proposer that writes each from the context alone (the tuner; not a conversation)."""
    if not getattr(deps.proposer, "batches", False):
        return 1
    return max(1, min(deps.config.parallel, deps.config.iterations - state.get("iteration", 0)))


def propose_batch(proposer: Any, ctx: ProposalContext, size: int) -> list[Proposal]:
    """Up to SIZE distinct proposals, each asked with the ones before it listed as pending trials
    (no times yet), so the proposer moves on instead of repeating itself."""
    out: list[Proposal] = []
    for _ in range(size):
        proposal = proposer.propose(ctx)
        if proposal is None or any(p.candidate.hash == proposal.candidate.hash for p in out):
            break
        out.append(proposal)
        c = proposal.candidate
        ctx = replace(ctx, trials=[*ctx.trials, Trial(candidate=c.hash, version="", family=c.family or c.name,
                                                      params=c.params, origin=c.origin, status="pending")])
    return out


def pending_of(proposal: Proposal) -> dict[str, Any]:
    """A batch member awaiting its turn: the proposal as plain JSON (the checkpoint holds it)."""
    return {"candidate": proposal.candidate.to_dict(), "change": proposal.change,
            "hypothesis": proposal.hypothesis, "failure": proposal.failure, "meta": proposal.meta,
            **({"focus": list(proposal.focus)} if proposal.focus else {})}


def evaluate_batch(state: AgentState, deps: Deps) -> tuple[dict, list[dict]]:
    """Evaluate the pending proposal and the queue together (the harness's `evaluate_many`, or one
    after another where it has none), storing each result as it is ready; each member learns the
    batch's versions. A member already on disk (a resumed run, or a repeat) is not evaluated again."""
    members = [state["pending"], *state.get("queue", [])]
    first = state.get("iteration", 0) + 1
    versions, todo = [], []
    for k, member in enumerate(members):
        cand = Candidate.from_dict(member["candidate"])
        version = deps.store.version_of(cand.hash) or f"v{first + k:03d}"
        versions.append(version)
        if deps.store.get_eval(version) is not None:
            continue
        path = deps.store.put_candidate(version, cand)
        if member.get("failure"):
            deps.store.put_eval(version, unusable(deps, cand, path, member["failure"]))
        else:
            todo.append((version, cand, path, tuple(member.get("focus", ()))))
    many = getattr(deps.evaluator, "evaluate_many", None)
    items = [(cand, path, focus) for _, cand, path, focus in todo]
    results = many(deps.spec, items) if many else ((i, evaluate_one(deps, *item)) for i, item in enumerate(items))
    for i, result in results:
        deps.store.put_eval(todo[i][0], result)
    deps.hooks.emit("batch", {"versions": versions, "evaluated": [v for v, *_ in todo]})
    members = [{**m, "batch": versions} for m in members]
    return members[0], members[1:]


def evaluate_one(deps: Deps, cand: Candidate, path, focus: tuple[str, ...] = ()) -> EvalResult:
    """The evaluator's verdict on one candidate, at its focus shapes only when it has one."""
    if focus:
        return deps.evaluator.evaluate(deps.spec, cand, path, focus=focus)
    return deps.evaluator.evaluate(deps.spec, cand, path)


def unusable(deps: Deps, cand: Candidate, path, reason: str) -> EvalResult:
    """The verdict on a proposal that holds no usable kernel (never run): rejected, with the reason."""
    return EvalResult(status=EvalStatus.ERROR, op=deps.spec.name, candidate=str(path), candidate_sha256=cand.hash,
                      mode="cpu-interpreter" if deps.evaluator.interpreter else "gpu", dtype=deps.spec.dtype,
                      rejections=[Rejection("no-model-new", reason, str(path))])
