"""The loop's nodes: small functions of (state, deps) returning partial state updates.

Each node journals what it did through `deps.hooks`. Nodes that run candidates are idempotent
across a crash: an evaluation or comparison already on disk for a candidate is reused, never
repeated, so `--resume` after `kill -9` loses nothing and evaluates nothing twice.
"""

from __future__ import annotations

import time
from typing import Any

from aka.agent import batch, screen
from aka.agent import memory as mem
from aka.agent.deps import Deps
from aka.agent.state import AgentState
from aka.evaluate.harness import weighted_sol
from aka.spec.candidate import Candidate
from aka.spec.memory import MemoryRecord, Proposal, ProposalContext, Snippet, Trial
from aka.spec.result import Decision, EvalResult, held_out_scrubber


def setup(state: AgentState, deps: Deps) -> dict[str, Any]:
    spec = deps.spec
    deps.hooks.emit("setup", {"op": spec.name, "config": deps.config.to_dict(),
                              "device": deps.evaluator.device, "interpreter": deps.evaluator.interpreter})
    visible = [s.id for s in spec.run_shapes(deps.evaluator.interpreter)[0]]
    base = MemoryRecord(id="m000", candidate="", version="baseline", change="the reference (eager PyTorch)",
                        hypothesis="", verdict="baseline", kind="baseline", protected=True,
                        lesson=f"{spec.name}: the eager reference; baselines "
                               f"{', '.join(spec.baselines)} are timed beside every accepted candidate "
                               f"at the visible shapes {', '.join(visible)}")
    return {"memory": [base.to_dict()], "events": ["setup"]}


def reads_profile(deps: Deps) -> bool:
    """Whether the proposer uses the incumbent's profile (the LLM does; the tuner does not, so its
    sessions profile only the best kernel, once, at the end, for the report)."""
    return bool(getattr(deps.proposer, "reads_profile", True))


def profile(state: AgentState, deps: Deps, final: bool = False) -> dict[str, Any]:
    version = state.get("incumbent")
    if version is None:
        return {"events": ["profile"]}
    if deps.profiler is None or deps.evaluator.interpreter:
        if final:
            return {}
        why = "the CPU interpreter has no profiler" if deps.evaluator.interpreter else "no profiler configured"
        deps.hooks.emit("profile", {"version": version, "skipped": why})
        return {"profile_summary": "", "events": ["profile"]}
    if not final and not reads_profile(deps):
        deps.hooks.emit("profile", {"version": version, "skipped": f"deferred: the {deps.proposer.name} does not "
                                    "read profiles; the best kernel is profiled once when the session ends"})
        return {"profile_summary": "", "events": ["profile"]}
    _, path = deps.store.candidate(version)
    result = deps.store.get_eval(version)
    shape = _heaviest(deps, result)
    compulsory = _compulsory_bytes(result, shape)
    out = (deps.profile_dir or path.parent) / f"profile-{version}"
    n = 1
    while out.exists():                                   # a resumed run profiles into a fresh folder
        out, n = out.with_name(f"profile-{version}-{n}"), n + 1
    summary, report = deps.profiler.profile(deps.spec, path, shape, compulsory, out)
    deps.store.put_profile(version, summary, report)
    deps.hooks.emit("profile", {"version": version, "shape": shape, "summary": summary})
    return {"profile_summary": summary, "events": ["profile"]}


def _heaviest(deps: Deps, result: EvalResult | None) -> str:
    """The visible shape with the largest weight x time (where the incumbent spends its time)."""
    weights = {s.id: s.weight for s in deps.spec.shapes}
    timed = [(weights.get(s.id, 1.0) * s.time.median_us, s.id) for s in (result.shapes if result else [])
             if s.time and not s.held_out]
    return max(timed)[1] if timed else deps.spec.shapes[0].id


def _compulsory_bytes(result: EvalResult | None, shape: str) -> float | None:
    for s in result.shapes if result else []:
        if s.id == shape and s.roofline is not None:
            return s.roofline.bytes
    return None


def retrieve(state: AgentState, deps: Deps) -> dict[str, Any]:
    if deps.retriever is None:
        deps.hooks.emit("retrieve", {"skipped": "no knowledge base"})
        return {"knowledge": [], "events": ["retrieve"]}
    hits = deps.retriever.retrieve(deps.spec, deps.evaluator.device, state.get("profile_summary", ""),
                                   deps.config.kb_k)
    nearest = []
    own = any(h.layer == "reference" and deps.spec.name in h.ops for h in hits)
    if not own and hasattr(deps.retriever, "nearest_kernels"):   # no kernel declares this operator
        seen = {h.source for h in hits}
        nearest = [h for h in deps.retriever.nearest_kernels(deps.spec, deps.evaluator.device, deps.config.kb_k)
                   if h.source not in seen]
        hits = hits + nearest
    deps.hooks.emit("retrieve", {"hits": [{"source": h.source, "score": round(h.score, 5), "layer": h.layer}
                                          for h in hits],
                                 "nearest_kernels": [h.source for h in nearest]})
    return {"knowledge": [h.to_dict() for h in hits], "events": ["retrieve"]}


def context(state: AgentState, deps: Deps) -> ProposalContext:
    """What the proposer may see (held-out shapes never reach it)."""
    inc, inc_eval = version_view(deps, state.get("incumbent"))
    last = state.get("last") or {}
    last_cand, last_eval = version_view(deps, last.get("version"))
    memory = [MemoryRecord.from_dict(r) for r in state.get("memory", [])]
    return ProposalContext(
        op=deps.spec.public_view(), device=deps.evaluator.device, iteration=state.get("iteration", 0),
        incumbent=inc, incumbent_eval=inc_eval, last=last_cand, last_eval=last_eval,
        last_decision=_public_reason(deps, last), profile_summary=state.get("profile_summary", ""),
        knowledge=[Snippet.from_dict(k) for k in state.get("knowledge", [])],
        memory=[m for m in memory if not m.masked], trials=[Trial.from_dict(t) for t in state.get("trials", [])],
        dropouts=state.get("dropouts", 0), avoid_families=tuple(state.get("avoid_families", [])),
        seed=deps.config.seed)


def _public_reason(deps: Deps, last: dict) -> str:
    """The last decision's reason as a proposer may read it: a held-out shape's id and sizes scrubbed."""
    result = deps.store.get_eval(last["version"]) if last.get("version") else None
    return held_out_scrubber(result.shapes)(last.get("reason", "")) if result else last.get("reason", "")


def version_view(deps: Deps, version: str | None) -> tuple[Candidate | None, dict | None]:
    if not version:
        return None, None
    cand, _ = deps.store.candidate(version)
    result = deps.store.get_eval(version)
    return cand, result.proposer_view() if result else None


def propose(state: AgentState, deps: Deps) -> dict[str, Any]:
    queue = list(state.get("queue") or [])
    if queue:                                        # the current batch's next member
        return _dequeue(queue, deps)
    ctx = context(state, deps)
    t0 = time.perf_counter()
    warm_ahead(deps, ctx)
    warmed = time.perf_counter()
    size = batch.batch_size(state, deps)
    proposals = batch.propose_batch(deps.proposer, ctx, size) if size > 1 else [deps.proposer.propose(ctx)]
    clocked = _clocked(t0, warmed)
    if len(proposals) <= 1:
        return record_proposal(proposals[0] if proposals else None, deps, **clocked)
    update = record_proposal(proposals[0], deps, batch=len(proposals), **clocked)
    update["pending"]["batch"] = []                  # its versions, given when the batch is evaluated
    update["queue"] = [batch.pending_of(p) for p in proposals[1:]]
    return update


def _dequeue(queue: list[dict], deps: Deps) -> dict[str, Any]:
    """The batch's next member becomes the pending proposal, journaled now (its turn)."""
    q = queue[0]
    proposal = Proposal(Candidate.from_dict(q["candidate"]), q["change"], q["hypothesis"], q.get("failure", ""),
                        q.get("meta", {}), tuple(q.get("focus", ())))
    update = record_proposal(proposal, deps, queued=True)
    if "batch" in q:                             # the batch's versions, given when it was evaluated
        update["pending"]["batch"] = q["batch"]
    return {**update, "queue": queue[1:]}


def _clocked(t0: float, warmed: float) -> dict[str, float]:
    """Where a proposal's time went: handing upcoming configurations to the compile-ahead, then the
    proposer itself (journaled with the proposal)."""
    return {"warm_s": round(warmed - t0, 3), "proposer_s": round(time.perf_counter() - warmed, 3)}


def warm_ahead(deps: Deps, ctx: ProposalContext) -> None:
    """Hand the configurations the proposer may reach next to a harness that compiles ahead."""
    upcoming = getattr(deps.proposer, "upcoming", None)
    warm = getattr(deps.evaluator, "warm", None)
    if upcoming is not None and warm is not None:
        warm(deps.spec, lambda: upcoming(ctx))          # listed only where the harness compiles ahead


def record_proposal(proposal: Proposal | None, deps: Deps, **extra: Any) -> dict[str, Any]:
    """Journal a proposal (with `extra` in its event) and make it the pending one."""
    if proposal is None:
        skipped = list(getattr(deps.proposer, "skipped", []))[:20]     # why kernels were left out, if it says
        deps.hooks.emit("propose", {"proposer": deps.proposer.name, "exhausted": True,
                                    **({"skipped": skipped} if skipped else {})})
        return {"pending": None, "stop_reason": f"the {deps.proposer.name} has nothing left to try",
                "events": ["propose"]}
    cand = proposal.candidate
    deps.hooks.emit("propose", {"proposer": deps.proposer.name, "candidate": cand.short, "name": cand.name,
                                "origin": cand.origin, "params": cand.params, "change": proposal.change,
                                "hypothesis": proposal.hypothesis, **({"failure": proposal.failure}
                                                                      if proposal.failure else {}),
                                **({"focus": list(proposal.focus)} if proposal.focus else {}),
                                **proposal.meta, **extra})
    pending = {"candidate": cand.to_dict(), "change": proposal.change, "hypothesis": proposal.hypothesis}
    if proposal.failure:
        pending["failure"] = proposal.failure
    if proposal.focus:
        pending["focus"] = list(proposal.focus)
    if proposal.meta.get("routes"):
        pending["routes"] = dict(proposal.meta["routes"])
    return {"pending": pending, "events": ["propose"]}


def evaluate(state: AgentState, deps: Deps) -> dict[str, Any]:
    pending = state["pending"]
    cand = Candidate.from_dict(pending["candidate"])
    update: dict[str, Any] = {}
    if "batch" in pending and not pending["batch"]:  # a batch's first member: evaluate the batch now
        pending, update["queue"] = batch.evaluate_batch(state, deps)
        update["pending"] = pending
    version = deps.store.version_of(cand.hash) or f"v{state.get('iteration', 0) + 1:03d}"
    result = deps.store.get_eval(version)
    recovered = result is not None and not pending.get("batch")
    if result is None:
        path = deps.store.put_candidate(version, cand)
        if pending.get("failure"):
            result = batch.unusable(deps, cand, path, pending["failure"])
        else:
            result = batch.evaluate_one(deps, cand, path, tuple(pending.get("focus", ())))
        deps.store.put_eval(version, result)
    deps.hooks.emit("evaluate", {"version": version, "candidate": cand.short, "recovered": recovered,
                                 "mode": result.mode, **({"batch": pending["batch"]} if pending.get("batch") else {}),
                                 **({"focus": result.focus} if result.focus else {}), **_figures(result)})
    trial = Trial(candidate=cand.hash, version=version, family=cand.family or cand.name, params=cand.params,
                  origin=cand.origin, status=result.status.value, times_us=screen.times(result),
                  input_shapes={s.id: s.input_shapes for s in result.shapes if not s.held_out},
                  timing=result.mode, focus=list(result.focus), routes=dict(pending.get("routes") or {}))
    repeat = any(t["version"] == version for t in state.get("trials", []))   # proposed again, not a crash
    return {**update, "trials": [trial.to_dict()], "iteration": state.get("iteration", 0) + 1,
            "last": {"version": version, "status": result.status.value, "repeat": repeat}, "events": ["evaluate"]}


def _figures(result: EvalResult) -> dict[str, Any]:
    """What a journal event says of an evaluation: its verdict, why, and its times and speedups."""
    return {"status": result.status.value, "rejections": [str(r) for r in result.rejections][:3],
            "times_us": screen.times(result), "speedup": _speedups(result), "wall_s": result.wall_s}


def _speedups(result: EvalResult) -> dict[str, dict[str, float]]:
    return {s.id: {k: round(v, 4) for k, v in s.speedup.items()} for s in result.shapes if s.speedup}


def accept(state: AgentState, deps: Deps) -> dict[str, Any]:
    last = dict(state["last"])
    version, incumbent = last["version"], state.get("incumbent")
    result = deps.store.get_eval(version)
    decision = deps.store.get_decision(version)
    if last.get("repeat"):
        decision = Decision(False, "already the incumbent" if incumbent == version else
                            f"identical to {version}, judged before: {_verdict(result, decision)}")
    elif decision is None:
        if not result.accepted:
            decision = Decision(False, f"rejected by the harness: {result.rejections[0]}")
        elif result.focus:
            decision = screen.focused(deps, state, version, result)
        elif incumbent is None:
            decision = Decision(True, "the first correct and honest kernel")
        elif incumbent == version:
            decision = Decision(False, "already the incumbent")
        else:
            decision = (screen.batch_screen(deps, version, state["pending"].get("batch") or [])
                        or screen.screen(deps, deps.store.get_eval(incumbent), result)
                        or deps.evaluator.compare(deps.spec, deps.store.candidate(incumbent),
                                                  deps.store.candidate(version)))
        deps.store.put_decision(version, decision)
    deps.hooks.emit("accept", {"version": version, "promote": decision.promote, "reason": decision.reason,
                               "speedup": decision.speedup, "noise": decision.noise,
                               **({"progress": True} if decision.progress else {}),
                               "failure": str(decision.failure) if decision.failure else None})
    last.update(promote=decision.promote, reason=decision.reason)
    update: dict[str, Any] = {"last": last, "events": ["accept"]}
    if decision.promote:
        deps.store.put_best(version)
        update.update(incumbent=version, promoted=[version], stall=0, dropouts_without_progress=0,
                      avoid_families=[])
    elif not decision.progress:
        fresh = len(screen.new_bests(state, version, result)) if result and result.accepted and result.focus else 0
        update["stall"] = round(state.get("stall", 0) + stall_weight(deps, incumbent, result, fresh), 6)
    return update


def stall_weight(deps: Deps, incumbent: str | None, result: EvalResult, fresh: int = 0) -> float:
    """What a candidate without a promotion adds to the stall: one for a full evaluation; for a
    focused trial (`Proposal.focus`), its share of the shapes the incumbent was judged at, less the
    FRESH shapes where it set a new best. A round of focused trials over every shape, none a new
    best, weighs what one candidate does: a trial at one shape of six cannot say the search has
    stalled the way a whole candidate can, and a screen over every shape that wins some of them
    has found what a dispatcher will use."""
    if not result or not result.focus:
        return 1.0
    judged = len(screen.times(deps.store.get_eval(incumbent))) if incumbent else 0
    return min(1.0, max(0, len(result.focus) - fresh) / judged) if judged else 1.0


def _verdict(result: EvalResult, decision: Decision | None) -> str:
    if not result.accepted:
        return f"rejected by the harness: {result.rejections[0]}"
    return decision.reason if decision else result.status.value


def reflect(state: AgentState, deps: Deps) -> dict[str, Any]:
    last = state["last"]
    version = last["version"]
    result = deps.store.get_eval(version)
    decision = Decision(False, last["reason"]) if last.get("repeat") else deps.store.get_decision(version)
    n = len(state.get("memory", []))
    record = mem.record_for(n, version, state["pending"], result, decision if result.accepted else None)
    records = [MemoryRecord.from_dict(r) for r in state.get("memory", [])] + [record]
    promoted = state.get("promoted", [])
    mem.protect(records, state.get("incumbent"), promoted[-1] if promoted else None)
    deps.store.put_memory(records)
    deps.hooks.emit("reflect", {"record": record.id, "kind": record.kind, "verdict": record.verdict,
                                "lesson": record.lesson})
    return {"memory": [r.to_dict() for r in records], "pending": None, "events": ["reflect"]}


def decide(state: AgentState, deps: Deps) -> dict[str, Any]:
    cfg = deps.config
    now = deps.clock()
    elapsed = state.get("elapsed_s", 0.0) + (now - deps.started)
    deps.started = now                                   # the next decide adds only what follows
    reason = state.get("stop_reason", "")
    sol = _incumbent_sol(state, deps)
    if state.get("queue"):                           # a batch's evaluated members are judged first
        deps.hooks.emit("decide", {"iteration": state.get("iteration", 0), "stall": state.get("stall", 0),
                                   "incumbent_sol": sol, "stop": None, "queued": len(state["queue"])})
        return {"elapsed_s": elapsed, "events": ["decide"]}
    if not reason and state.get("iteration", 0) >= cfg.iterations:
        reason = f"budget: {cfg.iterations} candidates evaluated"
    if not reason and cfg.time_limit_min is not None and elapsed >= 60 * cfg.time_limit_min:
        reason = f"time limit of {cfg.time_limit_min:g} min reached"
    if not reason and cfg.target_sol is not None and sol is not None and sol >= cfg.target_sol:
        reason = f"target speed-of-light {cfg.target_sol:g} reached ({sol:.3f})"
    if not reason and state.get("dropouts_without_progress", 0) >= cfg.max_dropouts:
        reason = f"{cfg.max_dropouts} dropouts in a row brought no improvement"
    spend = _spend(deps)
    if not reason and spend:
        reason = _over_budget(cfg, spend)
    deps.hooks.emit("decide", {"iteration": state.get("iteration", 0), "stall": state.get("stall", 0),
                               "incumbent_sol": sol, "stop": reason or None, **({"llm": spend} if spend else {})})
    return {"stop_reason": reason, "elapsed_s": elapsed, "events": ["decide"]}


def _spend(deps: Deps) -> dict[str, Any]:
    """A metered proposer's spend so far (the LLM's tokens and cost); {} for the others."""
    spend = getattr(deps.proposer, "spend", None)
    return spend().to_dict() if callable(spend) else {}


def _over_budget(cfg, spend: dict[str, Any]) -> str:
    if cfg.max_cost_usd is not None and spend.get("cost_usd", 0.0) >= cfg.max_cost_usd:
        return f"cost budget: ${spend['cost_usd']:.4f} spent of ${cfg.max_cost_usd:g}"
    if cfg.max_tokens is not None and spend.get("tokens", 0) >= cfg.max_tokens:
        return f"token budget: {spend['tokens']} tokens used of {cfg.max_tokens}"
    return ""


def _incumbent_sol(state: AgentState, deps: Deps) -> float | None:
    version = state.get("incumbent")
    result = deps.store.get_eval(version) if version else None
    return weighted_sol(result, deps.spec) if result else None


def dropout(state: AgentState, deps: Deps) -> dict[str, Any]:
    number = state.get("dropouts", 0) + 1
    records = [MemoryRecord.from_dict(r) for r in state.get("memory", [])]
    masked = mem.dropout(records, deps.config.seed, number)
    deps.store.put_memory(records)
    recent = [t["family"] for t in state.get("trials", [])[-deps.config.stall:]]
    avoid = [max(set(recent), key=lambda f: (recent.count(f), f))] if recent else []   # the stalled direction
    deps.proposer.reset()
    deps.hooks.emit("dropout", {"number": number, "masked": masked, "avoid_families": avoid,
                                "unmasked": [r.id for r in records if not r.masked]})
    return {"memory": [r.to_dict() for r in records], "dropouts": number, "stall": 0,
            "dropouts_without_progress": state.get("dropouts_without_progress", 0) + 1,
            "avoid_families": avoid, "events": ["dropout"]}


def confirm(state: AgentState, deps: Deps) -> None:
    """The best kernel evaluated once more with its baselines interleaved beside it (on a GPU, when
    the evaluator can): the report's figures. Once per session: a resumed finish does not repeat it."""
    version, run = state.get("incumbent"), getattr(deps.evaluator, "confirm", None)
    if not version or run is None or not deps.config.confirm or deps.evaluator.interpreter:
        return
    if deps.store.get_confirmed(version) is not None:
        return
    cand, path = deps.store.candidate(version)
    result = run(deps.spec, cand, path)
    deps.store.put_confirmed(version, result)
    deps.hooks.emit("confirm", {"version": version, **_figures(result)})


def finish(state: AgentState, deps: Deps) -> dict[str, Any]:
    confirm(state, deps)
    if not reads_profile(deps):                           # the profile deferred while searching
        profile(state, deps, final=True)
    deps.hooks.emit("stop", {"reason": state.get("stop_reason", ""), "incumbent": state.get("incumbent"),
                             "promoted": state.get("promoted", []), "iteration": state.get("iteration", 0),
                             "elapsed_s": round(state.get("elapsed_s", 0.0) + deps.clock() - deps.started, 3)})
    return {"events": ["finish"]}
