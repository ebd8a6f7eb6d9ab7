"""The session plots: drawn from the recorded session's records, and linked from report.md."""

from aka.replay.load import load
from aka.sessions import plots
from aka.sessions.folder import SessionFolder
from aka.sessions.report import write_report
from aka.spec.load import load_op


def test_trajectory_marks_promotions_and_dropouts(session):
    view = load(session)
    points, dropouts, label = plots.trajectory(view.events, lambda v: view.versions[v].eval, {})
    assert [p.version for p in points] == ["v001", "v002", "v003", "v004", "v005"]
    assert [p.version for p in points if p.promoted] == ["v001", "v003"]
    assert dropouts == [2, 4]                                  # after the 2nd and the 4th candidate
    assert points[0].incumbent == 1.0 and points[2].incumbent > 1.5
    assert "CPU interpreter" in label


def test_report_links_the_plots_it_writes(session):
    spec = load_op(load(session).spec_path())
    for f in (session / "plots").glob("*.png"):
        f.unlink()
    write_report(SessionFolder(session), spec)
    text = (session / "report.md").read_text()
    assert "![shapes](plots/shapes.png)" in text and "![trajectory](plots/trajectory.png)" in text
    for name in ("shapes.png", "trajectory.png"):
        assert (session / "plots" / name).read_bytes()[:4] == b"\x89PNG"


def test_a_focused_trial_gets_no_point_value(session):
    view = load(session)

    def get(v):
        r = view.versions[v].eval
        if v == "v004":                                        # as if judged at one shape only
            r.focus, r.shapes = [r.shapes[0].id], [r.shapes[0]]
        return r
    points, _, _ = plots.trajectory(view.events, get, {})
    values = {p.version: p.value for p in points}
    assert values["v004"] is None and values["v005"] is not None and values["v001"] == 1.0
