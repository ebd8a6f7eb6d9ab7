"""The run's timeline in report.md: wall time, rate, and the seconds of each loop step, from the journal."""

from aka.sessions.journal import Event
from aka.sessions.timeline import lines, timeline


def _events(spec):
    return [Event(i, f"2026-12-05T10:{m:02d}:{s:02d}+00:00", kind, data or {})
            for i, (m, s, kind, data) in enumerate(spec)]


def test_rates_and_steps_come_from_the_gaps_between_events():
    run = timeline(_events([
        (0, 0, "config", None), (0, 2, "setup", None), (0, 3, "propose", None), (0, 23, "evaluate", None),
        (0, 24, "decide", None), (0, 25, "propose", None), (0, 29, "evaluate", None), (0, 35, "accept", None),
        (0, 36, "decide", None), (0, 37, "propose", None), (0, 39, "evaluate", None), (0, 40, "decide", None),
        (0, 55, "confirm", None), (1, 5, "profile", None), (1, 5, "stop", None)]))
    assert run["wall_s"] == 65 and run["candidates"] == 3
    assert run["per_minute"] == round(60 * 3 / 65, 2)
    assert run["steps_s"]["evaluate"] == 26 and run["steps_s"]["confirm"] == 15 and run["steps_s"]["accept"] == 6
    assert run["step_counts"]["evaluate"] == 3
    assert run["steady"] == {"candidates": 2, "seconds": 16.0, "per_minute": 7.5}   # first decide to last
    text = "\n".join(lines(run, interpreter=False))
    assert "3 candidates evaluated in 65.0 s (2.8 per minute)" in text
    assert "After the first candidate: 2 in 16.0 s (7.5 per minute)" in text
    assert "| evaluate | 26.00 | 3 |" in text and "interpreter" not in text
    assert "say nothing about what a GPU run takes" in "\n".join(lines(run, interpreter=True))


def test_a_resumed_runs_time_between_kill_and_resume_is_not_the_runs():
    run = timeline(_events([
        (0, 0, "config", None), (0, 1, "setup", None), (0, 5, "evaluate", None), (0, 6, "decide", None),
        (0, 10, "evaluate", None),                                         # killed here
        (9, 0, "resume", None), (9, 3, "decide", None), (9, 7, "evaluate", None), (9, 8, "decide", None)]))
    assert run["wall_s"] == 1 + 4 + 1 + 4 + 3 + 4 + 1
    assert run["steady"]["seconds"] == 4 + 3 + 4 + 1                     # decide at 0:06 to decide at 9:08, gap left out
    assert timeline([]) == {} and lines({}, False) == []


def test_batch_members_decisions_end_no_iteration():
    run = timeline(_events([(0, 0, "config", None), (0, 1, "decide", None), (0, 2, "evaluate", None),
                            (0, 3, "decide", {"queued": True}), (0, 4, "evaluate", None), (0, 5, "decide", None)]))
    assert run["steady"] == {"candidates": 2, "seconds": 4.0, "per_minute": 30.0}
