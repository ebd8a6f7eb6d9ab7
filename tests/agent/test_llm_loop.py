"""The loop with the LLM proposer over a scripted OpenAI-compatible server on 127.0.0.1."""

import json

import pytest

from aka.agent.state import LoopConfig
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events

from tests.propose.llm_server import ScriptedServer, error, reply
from tests.propose.replies import BROKEN, EMPTY, FAST, FIXED, PROSE_ONLY, SLOW, TWO_BLOCKS, fenced, kernel

from .llm_kit import run


def _events(out, kind):
    return [e.data for e in read_events(out.session / "events.jsonl").events if e.kind == kind]


def test_an_improvement_is_promoted_only_after_the_interleaved_comparison(tmp_path):
    script = [reply(SLOW), reply(TWO_BLOCKS), reply(FAST)]
    with ScriptedServer(script) as srv:
        out, llm, ev = run(tmp_path / "s", srv.url, LoopConfig(iterations=3, stall=10))
    accepts = {a["version"]: a for a in _events(out, "accept")}
    assert accepts["v001"]["promote"]
    assert not accepts["v002"]["promote"] and "within noise" in accepts["v002"]["reason"]
    assert accepts["v003"]["promote"] and accepts["v003"]["speedup"] > 1.9
    assert len(ev.compares) == 2 and out.best == "v003"
    assert "one-row-slow" in srv.last_user(1) and "promoted" in srv.last_user(1)     # the incumbent is shown
    calls = sorted((out.session / "llm").glob("*.json"))
    assert [c.name for c in calls] == ["0001.json", "0002.json", "0003.json"]
    rec = json.loads(calls[1].read_text())
    assert rec["extraction"] == "fenced: block 2 of 2" and rec["prompt_tokens"] == 1200
    assert rec["model"] == "qwen2.5-coder-32b" and rec["cost_usd"] == 0.0 and rec["latency_s"] > 0
    assert rec["messages"][0]["role"] == "system" and rec["reply"] == TWO_BLOCKS
    propose = _events(out, "propose")
    assert propose[0]["llm_call"] == 1 and propose[0]["tokens"] == 1600 and not propose[0]["reused"]
    assert "memory-bound" in propose[2]["change"]


def test_a_compile_error_gets_one_repair_turn_with_the_error(tmp_path):
    still_broken = fenced("Sorry, fixed the signature.", kernel("one-row-v2", broken=True))
    script = [reply(BROKEN), reply(still_broken), reply(SLOW)]
    with ScriptedServer(script) as srv:
        out, llm, ev = run(tmp_path / "s", srv.url, LoopConfig(iterations=3, stall=10))
    second = srv.requests[1]["body"]["messages"]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]   # the conversation goes on
    assert second[2]["content"] == BROKEN and "## Repair" in second[3]["content"]
    assert "runtime-error" in second[3]["content"] and "scripted error" in second[3]["content"]
    third = srv.requests[2]["body"]["messages"]
    assert len(third) == 2, "a failed repair is not repaired again: a fresh proposal"
    assert "Last candidate's feedback" in third[1]["content"] and "llm-002-repair" in third[1]["content"]
    names = [p["name"] for p in _events(out, "propose")]
    assert names == ["llm-001", "llm-002-repair", "llm-003"] and out.iterations == 3   # a repair is a candidate


def test_a_reply_without_code_is_a_rejected_candidate_with_the_reason_fed_back(tmp_path):
    script = [reply(EMPTY), reply(PROSE_ONLY), reply(SLOW)]
    with ScriptedServer(script) as srv:
        out, llm, ev = run(tmp_path / "s", srv.url, LoopConfig(iterations=3, stall=10))
    ev_1 = SessionFolder(out.session).get_eval("v001")
    assert ev_1.status.value == "error" and ev_1.rejections[0].rule == "no-model-new"
    assert "the reply was empty" in ev_1.rejections[0].message and len(ev.calls) == 1   # never run
    repair = srv.requests[1]["body"]["messages"]
    assert "held no usable code" in repair[-1]["content"] and "the reply was empty" in repair[-1]["content"]
    third = srv.requests[2]["body"]["messages"]
    assert len(third) == 2 and "no code block" in third[1]["content"]       # fed back in a fresh proposal
    assert out.best == "v003"
    assert "the model's reply held no usable code" in (out.session / "candidates" / "v001" / "candidate.py").read_text()


def test_a_stall_drops_out_and_masked_records_never_reach_a_later_prompt(tmp_path):
    kernels = [reply(SLOW)] + [reply(fenced(f"Attempt {i}: tile the row in chunks of {64 * i}.",
                                            kernel(f"attempt-{i}"))) for i in range(1, 7)]
    with ScriptedServer(kernels) as srv:
        out, llm, ev = run(tmp_path / "s", srv.url, LoopConfig(iterations=7, stall=3, seed=1))
    drop = _events(out, "dropout")[0]
    assert llm.resets >= 1 and drop["masked"]
    folder = SessionFolder(out.session)
    masked = [m for m in folder.memory() if m.id in drop["masked"]]
    propose_seq = [e.seq for e in read_events(out.session / "events.jsonl").events if e.kind == "propose"]
    drop_seq = next(e.seq for e in read_events(out.session / "events.jsonl").events if e.kind == "dropout")
    after = [i for i, s in enumerate(propose_seq) if s > drop_seq]
    assert after
    for i in after:
        text = srv.prompts()[i]
        assert "Fresh start #1" in text
        for m in masked:
            assert m.lesson not in text and f"[{m.id} " not in text
    before = srv.prompts()[after[0] - 1]
    assert any(f"[{m.id} " in before for m in masked)          # they were there before the dropout


def test_the_cost_budget_stops_the_run(tmp_path):
    with ScriptedServer([], default=reply(SLOW, prompt_tokens=2000, completion_tokens=500)) as srv:
        out, llm, ev = run(tmp_path / "s", srv.url, LoopConfig(iterations=10, stall=10, max_cost_usd=0.02),
                           model="gpt-4o")
    assert out.stop_reason.startswith("cost budget: $0.0") and "of $0.02" in out.stop_reason
    spent = llm.spend()
    assert spent.calls == len(srv.requests) == 2 and spent.cost_usd >= 0.02 and out.iterations == 2


def test_the_token_budget_stops_the_run(tmp_path):
    with ScriptedServer([], default=reply(SLOW)) as srv:
        out, _, _ = run(tmp_path / "s", srv.url, LoopConfig(iterations=10, stall=10, max_tokens=3000))
    assert out.stop_reason == "token budget: 3200 tokens used of 3000" and len(srv.requests) == 2


def test_a_refused_key_ends_the_run_resumably_and_resume_continues(tmp_path):
    from aka.errors import EnvironmentMissing

    with ScriptedServer([reply(SLOW), error(401, "invalid api key")]) as srv:
        with pytest.raises(EnvironmentMissing) as err:
            run(tmp_path / "s", srv.url, LoopConfig(iterations=3, stall=10))
    assert err.value.exit_code == 3 and "refused the credentials" in str(err.value)
    errors = [e.data for e in read_events(tmp_path / "s" / "events.jsonl").events if e.kind == "error"]
    assert errors and errors[0]["resumable"] and errors[0]["exit_code"] == 3
    with ScriptedServer([reply(FAST), reply(SLOW)]) as srv2:
        out, _, _ = run(tmp_path / "s", srv2.url, LoopConfig(iterations=3, stall=10), resumed=True)
    assert out.iterations == 3 and out.best == "v002" and len(srv2.requests) == 2
    third = _events(out, "accept")[-1]        # the slow kernel again: a repeat, judged before, not re-promoted
    assert third["version"] == "v001" and not third["promote"] and "identical to v001" in third["reason"]
    assert SessionFolder(out.session).memory()[-1].verdict != "promoted"
