"""`aka replay --print / --json / --html` on the recorded session, on a truncated copy and on a
session of an unknown format: everything readable is shown, what is missing is said, nothing crashes
and nothing is written into the session."""

import json

from typer.testing import CliRunner

from aka.cli.main import build_app
from tests.replay.conftest import snapshot

runner = CliRunner()


def run(*args):
    return runner.invoke(build_app(), [str(a) for a in args])


def test_print_tells_the_story(session):
    before = snapshot(session)
    res = run("replay", session, "--print")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert "aka session 20261203-084516-rmsnorm: rmsnorm" in out
    assert "CPU (Triton interpreter)" in out
    assert "v001 promoted to incumbent: the first correct and honest kernel" in out
    assert "v003 promoted to incumbent" in out and "best: v003 (rmsnorm/multi_row_tile.py)" in out
    assert "retrieved 6 snippet(s): playbook-rmsnorm.md" in out
    assert "cpu-held-0  yes" in out                     # the per-shape table, held-out marked
    assert "dropout #1: masked 1 memory record(s) (m002), moving away from rmsnorm/latency_rows.py" in out
    assert "stopped: budget" in out and "(masked: m001, m002)" in out
    assert snapshot(session) == before


def test_json_is_the_normalized_event_list(session):
    res = run("replay", session, "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    assert doc["format"] == "aka.replay/1" and doc["best"] == "v003" and doc["problems"] == []
    kinds = [e["kind"] for e in doc["events"]]
    assert kinds[0] == "config" and kinds[-1] == "stop"
    assert [e["seq"] for e in doc["events"]] == list(range(len(kinds)))
    evaluated = [e for e in doc["events"] if e["kind"] == "evaluate"]
    assert [e["version"] for e in evaluated] == ["v001", "v002", "v003", "v004", "v005"]
    assert [e["iteration"] for e in evaluated] == [0, 1, 2, 3, 4]
    proposed = [e for e in doc["events"] if e["kind"] == "propose"]
    assert [e["version"] for e in proposed] == ["v001", "v002", "v003", "v004", "v005"]
    assert [e["data"]["masked"] for e in doc["events"] if e["kind"] == "dropout"] == [["m002"], ["m001"]]
    assert [e["version"] for e in doc["events"] if e["promoted"]] == ["v001", "v003"]
    assert evaluated[3]["incumbent"] == "v003"


def test_truncated_session_shows_what_it_can(truncated):
    before = snapshot(truncated)
    res = run("replay", truncated, "--print")
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "torn last line" in out
    assert "candidates/v002/candidate.py: missing" in out
    assert "candidates/v004/eval.json: missing" in out
    assert "v001 promoted to incumbent" in out            # the readable prefix is still told
    assert "not stopped: the session is still running or was interrupted" in out
    doc = json.loads(run("replay", truncated, "--json").stdout)
    assert any("torn last line" in p for p in doc["problems"])
    assert doc["events"][-1]["kind"] != "stop"
    assert snapshot(truncated) == before


def test_unknown_format_and_missing_files_never_crash(session, tmp_path):
    meta = json.loads((session / "session.json").read_text())
    meta["format"] = "aka.session/0"
    (session / "session.json").write_text(json.dumps(meta))
    (session / "events.jsonl").write_text((session / "events.jsonl").read_text()
                                          .replace('"aka.journal/1"', '"aka.journal/0"', 3))
    for name in ("baselines.json",):
        (session / name).unlink()
    (session / "candidates" / "v003" / "eval.json").write_text("{not json")
    before = snapshot(session)
    res = run("replay", session, "--print")
    assert res.exit_code == 1, res.output
    assert "format 'aka.session/0'" in res.stdout
    assert "unreadable line" in res.stdout and "candidates/v003/eval.json: unreadable" in res.stdout
    assert "(v003: evaluation record missing)" in res.stdout
    page = tmp_path / "page.html"
    assert run("replay", session, "--html", page).exit_code == 1
    assert "Missing or unreadable" in page.read_text()
    assert snapshot(session) == before


def test_html_refuses_to_write_into_the_session(session):
    res = run("replay", session, "--html", session / "page.html")
    assert res.exit_code == 2 and "never writes into the session" in res.output
    assert not (session / "page.html").exists()


def test_not_a_session_is_bad_input(tmp_path):
    res = run("replay", tmp_path / "nowhere", "--print")
    assert res.exit_code == 2 and "no session folder" in res.output


def test_odd_events_and_records_are_shown_not_fatal(session, tmp_path):
    lines = (session / "events.jsonl").read_text().splitlines()
    odd = [json.loads(line) for line in lines[:3]]
    odd[1]["data"] = ["not", "an", "object"]
    odd[2]["kind"] = "something-new"
    extra = [json.dumps(o) for o in odd] + ['{"format": "aka.journal/1", "seq": "x"}', "[]", "42"]
    (session / "events.jsonl").write_text("\n".join(extra + lines[3:]) + "\n")
    (session / "memory" / "m003.json").write_text('{"id": 3}')
    (session / "candidates" / "v002" / "candidate.json").write_text('{"source": "x", "hash": "bad"}')
    (session / "best" / "VERSION").write_text("v777\n")
    for args in (["--print"], ["--json"], ["--html", tmp_path / "p.html"]):
        res = run("replay", session, *args)
        assert res.exit_code == 1, (args, res.output)
    doc = json.loads(run("replay", session, "--json").stdout)
    problems = "\n".join(doc["problems"])
    assert "carries no data object" in problems and "memory/m003.json: unreadable" in problems
    assert "candidates/v002/candidate.json: unreadable" in problems and "unreadable line" in problems
    assert any(e["kind"] == "something-new" for e in doc["events"])
    assert "best/VERSION: names v777, which has no candidates/v777/ folder" in problems


def test_a_fractional_stall_reads_as_a_short_number():
    """A focused trial adds its share of the shapes to the stall (aka.agent.nodes.stall_weight)."""
    from aka.replay.story import _decide

    assert "(stall 0.33)" in _decide({"iteration": 4, "stall": 0.333333}, None)
    assert "(stall 1)" in _decide({"iteration": 4, "stall": 1.0}, None)
    assert "(stall 2)" in _decide({"iteration": 4, "stall": 2}, None)
