import json

from aka.sessions.journal import Journal, read_events


def test_a_truncated_journal_still_loads_and_appends_cleanly(tmp_path):
    path = tmp_path / "events.jsonl"
    j = Journal(path)
    for i in range(3):
        j.emit("evaluate", {"version": f"v{i:03d}"})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) - 25])                # a crash mid-write: the last line is torn
    read = read_events(path)
    assert [e.data["version"] for e in read.events] == ["v000", "v001"]
    assert len(read.dropped) == 1 and "torn last line" in read.dropped[0]
    j2 = Journal(path)                                       # a resumed run repairs and continues
    j2.emit("resume", {})
    again = read_events(path)
    assert again.dropped == [] and [e.kind for e in again.events] == ["evaluate", "evaluate", "resume"]
    assert again.events[-1].seq == 2
    assert all(json.loads(line)["format"] == "aka.journal/1" for line in path.read_text().splitlines())


def test_a_missing_journal_is_reported_not_raised(tmp_path):
    read = read_events(tmp_path / "nope.jsonl")
    assert read.events == [] and read.dropped
