"""The best kernel's end-of-session evaluation with its baselines interleaved (LoopConfig.confirm):
run once when a GPU session ends, stored beside the best, the report's figures; never on the
interpreter, never twice, and a best kernel that fails it is said so in the report."""

from dataclasses import replace

from aka.agent.state import LoopConfig
from aka.sessions.folder import SessionFolder
from aka.sessions.journal import read_events
from aka.sessions.run import run_session
from aka.spec.result import EvalStatus, Rejection, Timing

from .loop_kit import SPEC, TABLE, LoggingEvaluator, ScriptedProposer, cand, run

GPU_SHAPES = [s.id for s in SPEC.shapes + SPEC.cpu_shapes]


def script(c):
    status, us = TABLE[c.name]
    return status, {s: us for s in GPU_SHAPES}


class Confirming(LoggingEvaluator):
    """A GPU-like scripted harness whose `confirm` answers with the script's result, its times
    doubled unless `verdict` says otherwise, and baselines attached."""

    def __init__(self, log, verdict="accepted"):
        super().__init__(script, log)
        self.interpreter, self.verdict, self.confirmed = False, verdict, []

    def confirm(self, spec, candidate, path):
        self.confirmed.append(candidate.name)
        result = super().evaluate(spec, candidate, path)
        for s in result.shapes:
            if s.time:
                s.time = replace(s.time, median_us=2 * s.time.median_us, note="interleaved: x then y µs")
                s.baselines = {"torch.compile": Timing(30.0, 0.0, 0.0, 10, "events")}
                s.speedup = {"torch.compile": 30.0 / s.time.median_us}
        if self.verdict != "accepted":
            result = replace(result, status=EvalStatus(self.verdict),
                             rejections=[Rejection("wrong-output", "differs at cpu-small", str(path))])
        return result


def _kinds(session, kind):
    return [e.data for e in read_events(session / "events.jsonl").events if e.kind == kind]


def test_a_gpu_session_ends_by_evaluating_its_best_again_and_reports_those_figures(tmp_path):
    ev = Confirming(tmp_path / "log")
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=10), resumed=False, evaluator=ev)
    assert out.best == "v004" and ev.confirmed == ["d4"] and out.ok
    [event] = _kinds(out.session, "confirm")
    assert event["version"] == "v004" and event["status"] == "accepted"
    folder = SessionFolder(out.session)
    assert folder.get_confirmed("v004").shapes[0].time.median_us == 10.0            # 5 µs, doubled
    assert (out.session / "best" / "confirmed.json").is_file()
    report = (out.session / "report.md").read_text()
    assert "evaluated once more when the session ended" in report and "| 10.00 |" in report
    from aka.replay.load import load
    from aka.replay.story import steps

    [told] = [st for st in steps(load(out.session)) if st.kind == "confirm"]
    assert told.title == "v004 evaluated again at the end, baselines interleaved: accepted, 3.00–3.00× torch.compile"


def test_a_best_kernel_that_fails_its_end_of_session_evaluation_is_reported_as_such(tmp_path):
    ev = Confirming(tmp_path / "log", verdict="wrong")
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=4, stall=10), resumed=False, evaluator=ev)
    report = (out.session / "report.md").read_text()
    assert "**The best kernel's end-of-session evaluation was wrong** (wrong-output" in report
    assert "| 5.00 |" in report                                 # the search's figures, said to be so
    assert out.best == "v004" and not out.ok                    # not a result: `aka optimize` exits 1


def test_no_confirmation_when_switched_off_or_on_the_interpreter(tmp_path):
    ev = Confirming(tmp_path / "log")
    out = run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=2, confirm=False), resumed=False, evaluator=ev)
    assert ev.confirmed == [] and not _kinds(out.session, "confirm")
    assert "no end-of-session evaluation: `--no-confirm`" in (out.session / "report.md").read_text()
    cpu = Confirming(tmp_path / "log2")
    cpu.interpreter = True
    out = run(tmp_path / "t", tmp_path / "log2", LoopConfig(iterations=2), resumed=False, evaluator=cpu)
    assert cpu.confirmed == [] and not (out.session / "best" / "confirmed.json").exists()


class Crash(Exception):
    pass


class CrashAt:
    """A hook that raises at the first event of a kind: the process dies right after that step."""

    def __init__(self, kind):
        self.kind = kind

    def emit(self, kind, data):
        if kind == self.kind:
            raise Crash(kind)


def test_a_session_resumed_after_its_confirmation_does_not_confirm_again(tmp_path):
    ev = Confirming(tmp_path / "log")
    try:
        run(tmp_path / "s", tmp_path / "log", LoopConfig(iterations=2), resumed=False, evaluator=ev,
            hooks=[CrashAt("confirm")])
    except Crash:
        pass
    assert ev.confirmed == ["a1"] and (tmp_path / "s" / "candidates" / "v001" / "confirmed.json").is_file()
    again = Confirming(tmp_path / "log")
    out = run_session(SessionFolder(tmp_path / "s"), SPEC, LoopConfig(iterations=2), again, ScriptedProposer([]),
                      progress=False, resumed=True)
    assert _kinds(out.session, "stop")                             # the resumed run finished the session ...
    assert again.confirmed == []                                   # ... on the stored confirmation
    assert "evaluated once more when the session ended" in (out.session / "report.md").read_text()
