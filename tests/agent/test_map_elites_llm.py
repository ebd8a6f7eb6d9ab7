"""Map-elites with the LLM proposer against the scripted 127.0.0.1 server: the directive's target cell
and inspirations reach the model, a kernel written for the target lands in it, and the model
rewrites the weakest system-prompt section (a failed rewrite changes nothing); replay shows it all."""

import json

from aka.agent.qd.config import QDConfig
from aka.agent.qd.select import choose
from aka.agent.state import LoopConfig
from aka.evaluate.harness import ScriptedEvaluator
from aka.propose.prompt import SECTIONS
from aka.replay import archive as grid
from aka.replay.load import load
from aka.replay.text import render
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events
from aka.sessions.run import run_session

from tests.propose.llm_server import ScriptedServer, reply
from tests.propose.replies import fenced, kernel

from .llm_kit import SPEC, by_strategy, proposer

SEARCH = {"islands": 1, "rewrite_every": 1, "prompt_explore": 0.0, "inspirations": 2}
OLD = "- Change one idea at a time and say which bottleneck it addresses; the measurements decide."
NEW = "- Stream data read once with eviction_policy='evict_first'; it frees the cache for reused data."
HINTED = kernel("hinted-fast").replace("mask=mask, other=0.0).to(tl.float32)\n    inv",
                                       "mask=mask, other=0.0, eviction_policy=\"evict_first\").to(tl.float32)\n    inv")
TIMES = {"one-row-slow": ("accepted", 10.0), "hinted-fast": ("accepted", 5.0), "two-blocks": ("accepted", 8.0)}


def _seed_for_weakest_axis() -> int:
    """A seed whose second proposal (after one elite in m0c2p0) raises the weakest axis."""
    cells = {"m0c2p0:unprofiled": {"version": "v001", "cell": "m0c2p0:unprofiled", "fitness": 1.0, "name": "x"}}
    cfg = QDConfig.from_dict(SEARCH)
    return next(s for s in range(200) if choose([cells], 1, cfg, s, {}).mode == "weakest-axis")


def test_cell_targeting_inspirations_and_a_meta_prompt_rewrite(tmp_path):
    meta_ok = f"The philosophy section is vague about caching.\n<<<<<<< SEARCH\n{OLD}\n=======\n{NEW}\n>>>>>>> REPLACE\n"
    script = [reply(fenced("A first correct kernel, one row per program.", kernel("one-row-slow"))),
              reply(meta_ok),
              reply(fenced("The target asks for a vectorized memory strategy: evict_first on the row.", HINTED)),
              reply("I would rather not change the prompt."),
              reply(fenced("Keep the row in registers, hoist the weight.", kernel("two-blocks")))]
    seed = _seed_for_weakest_axis()
    with ScriptedServer(script) as srv:
        folder = SessionFolder.create(tmp_path, "20260101-000000-rmsnorm-llm", {"op": {"name": SPEC.name}})
        config = LoopConfig(iterations=3, stall=10, seed=seed, strategy="map-elites", search=SEARCH)
        llm = proposer(folder, srv.url)
        out = run_session(folder, SPEC, config, ScriptedEvaluator(by_strategy(TIMES)), llm, progress=False)
        requests = [r["body"]["messages"] for r in srv.requests]
    assert out.iterations == 3 and len(requests) == 5
    events = read_events(folder.journal_path).events
    selects = [e.data for e in events if e.kind == "select"]
    filed = [e.data for e in events if e.kind == "archive"]

    # cell targeting: the second proposal aims at the parent's weakest axis, and the kernel lands there
    assert selects[1]["mode"] == "weakest-axis" and selects[1]["target"] == "m1c2p0:unprofiled"
    asked = requests[2][-1]["content"]
    assert "## Search directive" in asked and "Target cell: memory vectorized (1), compute single-pass (2)" in asked
    assert "## Parent (the elite to start from" in asked
    assert filed[0]["cell"] == "m0c2p0:unprofiled" and filed[1]["cell"] == "m1c2p0:unprofiled"
    assert filed[1]["hit_target"] is True and filed[1]["verdict"] == "new cell"

    # inspirations: the third proposal carries the elite of the other cell, with its source
    third = selects[2]
    assert [i["version"] for i in third["inspirations"]] and third["parent"] in ("v001", "v002")
    other = next(i for i in third["inspirations"])
    assert other["version"] != third["parent"]
    text = requests[4][-1]["content"]
    assert "Inspirations (elites of other cells" in text and f"### {other['version']}" in text
    shown = text.split(f"### {other['version']}")[1]
    assert ("strategy: one-row-slow" if other["version"] == "v001" else "strategy: hinted-fast") in shown

    # the meta-prompt rewrite: the weakest section (all tie: the first, philosophy) rewritten by the model
    prompts = [e.data for e in events if e.kind == "prompt"]
    assert prompts[0]["created"] == "p000" and prompts[1]["created"] == "p001" and prompts[1]["section"] == "philosophy"
    assert prompts[2]["created"] is None and "no search/replace block" in prompts[2]["failure"]
    assert prompts[2]["section"] == "strategies"                                 # rewritten least often next
    assert NEW in requests[2][0]["content"] and OLD not in requests[2][0]["content"]       # p001 is used next
    assert OLD in requests[0][0]["content"] and selects[1]["prompt"] == "p001"
    saved = json.loads((folder.root / "prompts" / "p001.json").read_text())
    assert saved["sections"]["philosophy"] == SECTIONS["philosophy"].replace(OLD, NEW)
    calls = [json.loads(p.read_text()) for p in sorted(folder.llm_dir.glob("*.json"))]
    assert [c["purpose"] for c in calls] == ["propose", "meta-prompt", "propose", "meta-prompt", "propose"]

    # replay: the grid and every prompt version
    view = load(folder.root)
    story = render(view)
    assert "Archive (map-elites):" in story and "prompt p001 (rewrite, rewrote 'philosophy' of p000)" in story
    assert "prompt rewrite of 'strategies' failed" in story
    a = grid.rebuild(view)
    assert a.prompt_uses()["p001"]["uses"] == 2 and [p["id"] for p in a.prompts] == ["p000", "p001"]

    # report.md: the archive section with the prompt versions and the failed rewrite
    report = (folder.root / "report.md").read_text()
    assert "### Prompt versions" in report and "| p001 | rewrite | philosophy of p000 | 2 |" in report
    assert "| p000 | seed |  | 1 |" in report and "- failed rewrite of 'strategies' (generation" in report
    assert "![archive](plots/archive.png)" in report
