"""Focused trials (`Proposal.focus`) through the real loop: judged at their shapes alone, never
compared or promoted, progress only when they set a new best at their shape; batches and replay."""

import pytest

from aka.agent.state import LoopConfig
from aka.evaluate.harness import ReplayEvaluator, ScriptedEvaluator
from aka.propose.buckets import key as config_key
from aka.propose.scripted import ScriptedProposer
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events

from .loop_kit import SPEC, SHAPES, BatchEvaluator, BatchingProposer, LoggingEvaluator, cand, run

# a1 full 10 µs (first: promoted); c3 focused at SHAPES[0], 9.95 µs (no new best there);
# d4 focused, 5 µs (a new best, yet not promoted); e5 full 6 µs (compared, promoted)
TABLE = {"a1": ("accepted", 10.0), "c3": ("accepted", 9.95), "d4": ("accepted", 5.0), "e5": ("accepted", 6.0)}
ORDER = ("a1", "c3", "d4", "e5")
FOCUS = {"c3": (SHAPES[0],), "d4": (SHAPES[0],)}


def script(c):
    status, us = TABLE[c.name]
    return status, {s: us for s in SHAPES}


def _events(out, kind):
    return [e.data for e in read_events(out.session / "events.jsonl").events if e.kind == kind]


def _tuner_session(tmp_path, script, iterations):
    """The real tuner over two shipped rmsnorm families through the real loop, judged by SCRIPT:
    (the evaluator, the run's outcome, its evaluate events and its accept events by version)."""
    from pathlib import Path

    from aka.propose.tuner import Tuner
    from aka.sessions.run import run_session

    root = tmp_path / "kernels" / "rmsnorm"
    root.mkdir(parents=True)
    shipped = Path(__file__).parents[2] / "reference_kernels" / "rmsnorm"
    for name in ("blocked_columns.py", "multi_row_tile.py"):
        (root / name).write_text((shipped / name).read_text())
    ev = ScriptedEvaluator(script)
    folder = SessionFolder.create(tmp_path, "s", {"op": {"name": "rmsnorm"}})
    out = run_session(folder, SPEC, LoopConfig(iterations=iterations, stall=10), ev, Tuner([tmp_path / "kernels"]),
                      progress=False)
    return (ev, out, {e["version"]: e for e in _events(out, "evaluate")},
            {a["version"]: a for a in _events(out, "accept")})


def test_a_focused_trial_is_judged_at_its_shape_alone_and_never_promoted(tmp_path):
    ev = LoggingEvaluator(script, tmp_path / "log")
    proposer = ScriptedProposer([cand(t) for t in ORDER], focus=FOCUS)
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=10), resumed=False,
              order=ORDER, proposer=proposer, evaluator=ev)
    by_name = {c.name: h for h, c in ((cand(t).hash, cand(t)) for t in ORDER)}
    assert ev.focus[by_name["a1"]] == () and ev.focus[by_name["e5"]] == ()
    folder = SessionFolder(out.session)
    versions = {e["version"]: e for e in _events(out, "evaluate")}
    focused = [v for v, e in versions.items() if e.get("focus")]
    assert len(focused) == 2 and all(versions[v]["focus"] == [SHAPES[0]] for v in focused)
    for v in focused:
        res = folder.get_eval(v)
        assert res.focus == [SHAPES[0]] and [s.id for s in res.shapes] == [SHAPES[0]]   # no held-out shape
    compared = {pair[1] for pair in ev.compares}
    assert all(folder.candidate(v)[0].hash not in compared for v in focused)          # never compared
    accepts = {a["version"]: a for a in _events(out, "accept")}
    v_c3, v_d4 = focused
    assert not accepts[v_c3]["promote"] and not accepts[v_c3].get("progress")
    assert "no new best" in accepts[v_c3]["reason"]
    assert not accepts[v_d4]["promote"] and accepts[v_d4]["progress"] is True         # 5 µs < 10 µs, still not the incumbent
    assert "a new best" in accepts[v_d4]["reason"] and "never promoted" in accepts[v_d4]["reason"]
    assert out.best == "v004" and accepts["v004"]["promote"]                         # e5, judged everywhere
    assert (out.session / "best" / "candidate.py").read_text().startswith("# e5")
    assert "Candidates evaluated: 4 (accepted 4; 2 of them focused trials" in (out.session / "report.md").read_text()
    records = {m.version: m for m in folder.memory()}
    assert (records[v_c3].verdict, records[v_c3].kind) == ("no-shape-best", "anti-strategy")
    assert (records[v_d4].verdict, records[v_d4].kind) == ("shape-best", "strategy")
    assert f"judged at {SHAPES[0]} alone" in records[v_d4].lesson
    # the trial the proposer sees says which shapes it holds
    seen = proposer.seen[-1].trials
    assert [t.focus for t in seen] == [[], [SHAPES[0]], [SHAPES[0]]]
    assert set(seen[2].times_us) == {SHAPES[0]}


def test_stall_counts_focused_trials_without_a_new_best_only(tmp_path):
    ev = LoggingEvaluator(script, tmp_path / "log")
    proposer = ScriptedProposer([cand(t) for t in ORDER], focus=FOCUS)
    # stall 2: c3 (no new best) counts 1, d4 (a new best) does not, so no dropout before e5
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=2), resumed=False,
              order=ORDER, proposer=proposer, evaluator=ev)
    assert not _events(out, "dropout") and out.best == "v004"
    # a focused trial without a new best weighs 1/len(SHAPES): a round of them over every shape
    # counts as one candidate, so stall 1 drops out after the round, not before
    misses = [f"c3{i}" for i in range(len(SHAPES))]
    proposer = ScriptedProposer([cand(t) for t in ("a1", *misses, "e5")], focus={m: (SHAPES[0],) for m in misses})
    TABLE.update({m: ("accepted", 9.9) for m in misses})
    try:
        out = run(tmp_path / "t", tmp_path / "log2", LoopConfig(iterations=len(misses) + 2, stall=1), resumed=False,
                  order=("a1", *misses, "e5"), proposer=proposer,
                  evaluator=LoggingEvaluator(script, tmp_path / "l2"))
    finally:
        for m in misses:
            del TABLE[m]
    events = read_events(out.session / "events.jsonl").events
    dropout_at = [i for i, e in enumerate(events) if e.kind == "dropout"]
    evaluated = [i for i, e in enumerate(events) if e.kind == "evaluate"]
    assert len(dropout_at) == 1 and evaluated[len(misses)] < dropout_at[0] < evaluated[len(misses) + 1]
    stalls = [e.data["stall"] for e in events if e.kind == "decide"]
    assert stalls[1:len(misses)] == [pytest.approx(k / len(SHAPES)) for k in range(1, len(misses))]


def test_a_focused_trial_over_several_shapes_adds_only_the_shapes_it_did_not_win_to_the_stall(tmp_path):
    """A screen judged at every visible shape that sets a new best at one of them has found what a
    dispatcher will use: it adds (shapes - 1) / shapes to the stall, and one that wins none adds 1."""
    times = {"a1": {s: 10.0 for s in SHAPES}, "w2": {s: (5.0 if s == SHAPES[0] else 11.0) for s in SHAPES},
             "l3": {s: 12.0 for s in SHAPES}}
    order = ("a1", "w2", "l3")
    proposer = ScriptedProposer([cand(t) for t in order], focus={"w2": tuple(SHAPES), "l3": tuple(SHAPES)})
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=3, stall=10), resumed=False, order=order,
              proposer=proposer, evaluator=LoggingEvaluator(lambda c: ("accepted", times[c.name]), tmp_path / "l"))
    stalls = [e["stall"] for e in _events(out, "decide")]
    share = (len(SHAPES) - 1) / len(SHAPES)
    assert stalls == [0, pytest.approx(share), pytest.approx(share + 1.0)]
    accepts = {a["version"]: a for a in _events(out, "accept")}
    assert not accepts["v002"].get("progress") and "a new best" in accepts["v002"]["reason"]
    # the screen that won one shape is a strategy there (what a dispatcher uses), not an anti-strategy
    records = {m.version: m for m in SessionFolder(out.session).memory()}
    assert (records["v002"].verdict, records["v002"].kind) == ("shape-best", "strategy")
    assert records["v002"].figures["new_bests"] == [SHAPES[0]]
    assert f"the best yet at {SHAPES[0]}" in records["v002"].lesson
    assert (records["v003"].verdict, records["v003"].kind) == ("no-shape-best", "anti-strategy")
    assert records["v003"].figures["new_bests"] == []


def test_a_batch_passes_each_members_focus_and_the_screen_ignores_focused_members(tmp_path):
    ev = BatchEvaluator(script, tmp_path / "log")
    proposer = BatchingProposer([cand(t) for t in ORDER], focus=FOCUS)
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=10, parallel=4), resumed=False,
              order=ORDER, proposer=proposer, evaluator=ev)
    assert ev.batches == [["a1", "c3", "d4", "e5"]]
    assert {n: ev.focus[cand(n).hash] for n in ORDER} == {"a1": (), "c3": (SHAPES[0],), "d4": (SHAPES[0],), "e5": ()}
    accepts = {a["version"]: a for a in _events(out, "accept")}
    # d4's 5 µs at one shape does not screen e5 out of its comparison: e5 is compared and promoted
    assert accepts["v004"]["promote"] and out.best == "v004"
    assert accepts["v003"]["progress"] is True and not accepts["v003"]["promote"]


def test_replay_answers_only_with_the_focus_it_recorded():
    ev = ScriptedEvaluator(script)
    c = cand("d4")
    res = ev.evaluate(SPEC, c, "d4.py", focus=(SHAPES[0],))
    replay = ReplayEvaluator({c.hash: res}, {})
    assert replay.evaluate(SPEC, c, "d4.py", focus=(SHAPES[0],)) is res
    with pytest.raises(KeyError, match="not at every shape"):
        replay.evaluate(SPEC, c, "d4.py")


def test_a_focused_trial_without_a_time_is_neither_promoted_nor_progress():
    from types import SimpleNamespace

    from aka.agent.screen import focused

    res = ScriptedEvaluator(lambda c: ("accepted", {})).evaluate(SPEC, cand("a1"), "a1.py", focus=(SHAPES[0],))
    d = focused(SimpleNamespace(spec=SPEC), {"trials": []}, "v001", res)
    assert not d.promote and not d.progress and f"{SHAPES[0]} (no time measured)" in d.reason


def _tuned_point_wins_the_first_shape():
    """A script: blocked_columns beats multi_row_tile everywhere at its defaults; any other point of
    it is fastest at the first shape and slower elsewhere; a dispatcher is fastest at the first."""
    defaults = {}

    def script(c):
        if c.origin == "dispatcher":
            return "accepted", {s: (9.0 if s == SHAPES[0] else 10.0) for s in SHAPES}
        base = {"rmsnorm/blocked_columns.py": 10.0, "rmsnorm/multi_row_tile.py": 12.0}[c.family]
        defaults.setdefault(c.family, c.params)
        tuned = c.params != defaults[c.family] and c.family == "rmsnorm/blocked_columns.py"
        return "accepted", {s: (9.0 if tuned and s == SHAPES[0] else base + (0.5 if tuned else 0.0)) for s in SHAPES}
    return script


def test_the_tuner_end_to_end_a_focused_winner_reaches_best_only_through_a_dispatcher(tmp_path):
    """The real tuner through the real loop: a tuned point wins its shape in a focused trial, is
    not promoted, and the dispatcher built on it is judged at every shape, compared and promoted."""
    ev, out, evaluated, accepts = _tuner_session(tmp_path, _tuned_point_wins_the_first_shape(), 4)
    # v001 the first screen, judged in full (the incumbent); v002 the second screen, at the visible
    # shapes only; v003 a tuning point at one shape; v004 the dispatcher
    assert [evaluated[v].get("focus") for v in ("v001", "v002", "v003", "v004")] == [None, list(SHAPES), [SHAPES[0]],
                                                                                      None]
    assert not accepts["v002"]["promote"] and not any(pair[1] == SessionFolder(out.session).candidate("v002")[0].hash
                                                      for pair in ev.compares)           # a screen is not compared
    assert accepts["v003"]["progress"] is True and not accepts["v003"]["promote"]       # the tuned point
    disp, _ = SessionFolder(out.session).candidate("v004")
    assert disp.origin == "dispatcher" and ev.focus[disp.hash] == ()                     # judged everywhere
    assert (disp.hash and any(pair[1] == disp.hash for pair in ev.compares))             # and compared
    assert accepts["v004"]["promote"] and out.best == "v004"
    routes = next(e["routes"] for e in _events(out, "propose") if e.get("origin") == "dispatcher")
    tuned = SessionFolder(out.session).candidate("v003")[0]
    assert routes[SHAPES[0]] == config_key(tuned.family, tuned.params)          # the journal says what ran where


def test_the_loops_trial_of_a_dispatcher_keeps_its_routes(tmp_path, monkeypatch):
    """What the tuner sees of a dispatcher judged in full: which configuration served each shape."""
    from aka.propose.tuner import Tuner

    seen = []
    real = Tuner.propose
    monkeypatch.setattr(Tuner, "propose", lambda self, ctx: seen.append(list(ctx.trials)) or real(self, ctx))
    _, out, _, _ = _tuner_session(tmp_path, _tuned_point_wins_the_first_shape(), 5)
    disp = [t for t in seen[-1] if t.origin == "dispatcher"]                     # v004, seen by the 5th proposal
    tuned = SessionFolder(out.session).candidate("v003")[0]
    assert len(disp) == 1 and set(disp[0].routes) == set(SHAPES)
    assert disp[0].routes[SHAPES[0]] == config_key(tuned.family, tuned.params)


def test_the_tuner_end_to_end_a_screen_that_wins_every_shape_is_promoted_through_a_full_copy(tmp_path):
    """The real tuner through the real loop: the second family's screen, judged at the visible
    shapes only, is fastest everywhere; it is not promoted on that word. The tuner proposes the same
    configuration judged in full (a copy whose source says so), which is compared and promoted."""
    from aka.propose.tuner import PROMOTED

    def script(c):
        return "accepted", {s: {"rmsnorm/blocked_columns.py": 10.0, "rmsnorm/multi_row_tile.py": 6.0}[c.family]
                            for s in SHAPES}

    ev, out, evaluated, accepts = _tuner_session(tmp_path, script, 3)
    assert [evaluated[v].get("focus") for v in ("v001", "v002", "v003")] == [None, list(SHAPES), None]
    first, screened, promoted = (SessionFolder(out.session).candidate(v)[0] for v in ("v001", "v002", "v003"))
    assert accepts["v001"]["promote"] and not accepts["v002"]["promote"] and accepts["v002"]["progress"] is True
    assert screened.family == promoted.family == "rmsnorm/multi_row_tile.py" and screened.params == promoted.params
    assert promoted.source == screened.source + PROMOTED and promoted.hash != screened.hash
    assert ev.focus[promoted.hash] == () and any(pair[1] == promoted.hash for pair in ev.compares)
    assert accepts["v003"]["promote"] and out.best == "v003"
