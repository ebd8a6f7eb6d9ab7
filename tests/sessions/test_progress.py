"""The progress lines on stderr: one per candidate, and a line when a batch starts (--parallel)."""

from aka.sessions.run import Progress


def test_a_batch_announces_itself_and_each_member_gets_its_line(capsys):
    p = Progress(True)
    p.emit("propose", {"candidate": "abc", "batch": 4})
    p.emit("evaluate", {"version": "v001", "status": "accepted", "batch": ["v001", "v002"]})
    p.emit("accept", {"version": "v001", "promote": True, "reason": "the first correct and honest kernel"})
    p.emit("propose", {"candidate": "def", "queued": True})           # a later member: no line of its own
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["aka: evaluating a batch of 4 candidates side by side (--parallel)",
                     "aka: [v001] accepted",
                     "aka:    promoted: the first correct and honest kernel (incumbent v001)"]


def test_quiet_under_json(capsys):
    Progress(False).emit("propose", {"batch": 4})
    assert capsys.readouterr().err == ""
