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


def test_the_call_behind_a_step_and_its_full_text_on_c(h200_session):
    before = snapshot(h200_session)

    async def script(app, pilot):
        app.set_filter("propose")
        assert app.selected.version == "v001"
        assert "── model call 1 (propose); c shows its prompt and reply ──" in app.shown
        assert "2862 tokens in / 544 out" in app.shown and "profile summary: not in the prompt" in app.shown
        assert "says: I'll start with a straightforward" in app.shown and "## Operator" not in app.shown
        await pilot.press("c")
        assert "── model call 1: prompt and reply as recorded ──" in app.shown
        assert "## Operator: rmsnorm" in app.shown and "class ModelNew(torch.nn.Module):" in app.shown
        await pilot.press("j", "j", "j")
        assert app.selected.version == "v004"
        assert "── request message 3 (user): Repair (6644 chars) ──" in app.shown
        await pilot.press("c")
        assert "model call 4 (repair)" in app.shown and "## Repair" not in app.shown
        await pilot.press("j")
        assert app.selected.version == "v005" and "model call" not in app.shown      # a tuner point
        app.set_filter("evaluate")
        await pilot.press("j", "j", "j")
        assert app.selected.version == "v004" and "model call 4 (repair)" in app.shown

    drive(h200_session, script)
    assert snapshot(h200_session) == before


def test_a_missing_call_is_said_in_the_inspector(h200_session):
    (h200_session / "llm" / "0002.json").unlink()

    async def script(app, pilot):
        app.set_filter("propose")
        await pilot.press("j")
        assert app.selected.version == "v002"
        assert "llm/0002.json is missing or unreadable" in app.shown
        assert "llm/0002.json: missing (the journal's propose event #10 names call 2)" in app.shown

    drive(h200_session, script)
