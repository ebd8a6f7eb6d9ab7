"""The inspector driven headlessly with Textual's pilot on the recorded session."""

import asyncio
import json

from aka.replay.tui import ReplayApp
from tests.replay.conftest import snapshot


def drive(root, script, follow=False):
    """Run SCRIPT(app, pilot) inside a headless app."""
    async def main():
        app = ReplayApp(root, follow=follow, poll_s=0.1)
        async with app.run_test(size=(160, 50)) as pilot:
            await pilot.pause()
            await script(app, pilot)
    asyncio.run(main())


def test_timeline_steps_jumps_filters_and_searches(session):
    before = snapshot(session)

    async def script(app, pilot):
        assert app.selected.kind == "config" and "session 20261203-084516-rmsnorm" in app.shown
        await pilot.press("n")                                   # first promotion
        assert app.selected.kind == "accept" and app.selected.version == "v001"
        await pilot.press("n")
        assert app.selected.version == "v003" and "promoted" in app.shown
        assert "diff against the incumbent v001" in app.shown
        assert "per-shape evaluation" in app.shown and "cpu-held-0" in app.shown
        assert "honesty and correctness verdict ──\naccepted (cpu-interpreter, float32)" in app.shown
        await pilot.press("p")
        assert app.selected.version == "v001"
        await pilot.press("j", "j")
        assert app.selected.kind == "decide"
        app.set_filter("propose")
        assert {s.kind for s in app.listed} == {"propose"} and len(app.listed) == 5
        await pilot.press("j")
        assert "tuner parameter points" in app.shown and "→ v002" in app.shown
        await pilot.press("escape")
        await pilot.press("slash")
        await pilot.press(*"one_row_registers", "enter")
        await pilot.pause()
        assert app.search_text == "one_row_registers" and app.listed
        assert all("one_row_registers" in s.title or s.version == "v004" for s in app.listed)
        assert {s.kind for s in app.listed} >= {"propose", "evaluate", "accept", "dropout"}
        await pilot.press("escape")
        app.set_filter("reflect")
        assert "memory records" in app.shown and "m000 baseline" in app.shown
        assert "m002 v002 anti-strategy within-noise [MASKED by dropout 1]" in app.shown
        app.set_filter("dropout")
        assert "this dropout masked: m002" in app.shown
        app.set_filter("retrieve")
        assert "retrieved knowledge" in app.shown and "playbook-rmsnorm.md" in app.shown
        await pilot.press("f")                                   # cycles to the next kind present
        assert app.kind_filter != "retrieve"

    drive(session, script)
    assert snapshot(session) == before


def test_follows_a_running_session(truncated):
    journal = truncated / "events.jsonl"

    async def script(app, pilot):
        n = len(app.all_steps)
        assert any("torn last line" in p for p in app.view.problems) and "missing or unreadable" in app.shown
        line = {"format": "aka.journal/1", "seq": 99, "time": "2026-12-03T09:00:00.000+00:00", "kind": "stop",
                "data": {"reason": "budget: test", "incumbent": "v003"}}
        text = journal.read_text()
        journal.write_text(text[: text.rfind("\n") + 1] + json.dumps(line) + "\n")
        for _ in range(30):
            await pilot.pause(0.1)
            if len(app.all_steps) > n:
                break
        assert app.all_steps[-1].kind == "stop" and "budget: test" in app.all_steps[-1].title

    drive(truncated, script, follow=True)


def test_llm_exchanges_are_shown(session):
    (session / "llm").mkdir()
    v002 = json.loads((session / "candidates" / "v002" / "candidate.json").read_text())["hash"]
    (session / "llm" / "0001.json").write_text(json.dumps({            # aka.propose.calls.CallRecord
        "format": "aka.llm-call/1", "n": 1, "key": "k", "model": "test-model", "prompt_tokens": 1200,
        "completion_tokens": 340, "cost_usd": 0.0042, "latency_s": 2.5, "purpose": "propose",
        "candidate": v002, "extraction": "fenced python block",
        "messages": [{"role": "user", "content": "make rmsnorm faster"}], "reply": "use one row per program"}))

    async def script(app, pilot):
        app.set_filter("propose")
        await pilot.press("j")
        assert app.selected.version == "v002"
        assert "LLM request and reply" in app.shown and "test-model" in app.shown
        assert "use one row per program" in app.shown and "$0.0042" in app.shown
        assert "[user] make rmsnorm faster" in app.shown and "1200 prompt + 340 completion tokens" in app.shown

    drive(session, script)
