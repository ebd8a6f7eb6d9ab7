"""tools/h200_llm_session.sh on the CPU interpreter: the scripted server replays the recorded
rmsnorm replies through `aka optimize --model` (in-memory knowledge base, hash embedder), and the
summary's grep for held-out data finds a planted leak. The figures are interpreter times."""

import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

from aka.propose.scripted_server import load_steps

ROOT = Path(__file__).resolve().parents[2]
REPLIES = ROOT / "tools" / "llm_replies" / "rmsnorm"


def _run(out: Path, iterations: int) -> subprocess.CompletedProcess:
    env = {**os.environ, "OUT": str(out), "PYTHON": sys.executable, "AKA_WHEELS": "0", "AKA_DEVICE": "cpu"}
    return subprocess.run(["bash", str(ROOT / "tools" / "h200_llm_session.sh"), str(iterations)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


def test_the_device_script_runs_the_llm_path_end_to_end(tmp_path):
    out = tmp_path / "out"
    done = _run(out, 5)
    assert done.returncode == 0, done.stderr[-3000:] + (out / "optimize.log").read_text()[-3000:]
    assert sorted(p.name for p in out.iterdir()) == ["env.txt", "events.jsonl", "optimize.json", "optimize.log",
                                                      "report.md", "session.tgz", "summary.md"]
    summary = done.stdout
    assert "| v003 |" in summary and "| error |" in summary                 # the compile error ...
    assert "model call 4 (repair)" in summary                               # ... repaired in one turn
    assert "tuner: point 1/4 of v004's space (12 points)" in summary        # the declared space, handed off
    assert "held-out data in the 4 recorded requests and the server's log: none" in summary
    doc = json.loads((out / "optimize.json").read_text())
    assert doc["evaluated"] == 5 and doc["llm"]["calls"] == 4 and doc["mode"] == "cpu-interpreter"

    extracted = tmp_path / "x"
    with tarfile.open(out / "session.tgz") as tar:
        tar.extractall(extracted, filter="data")
    session = next(extracted.iterdir())
    names = {p.relative_to(session).as_posix() for p in session.rglob("*") if p.is_file()}
    assert {"llm/0001.json", "llm/0004.json", "best/candidate.py", "report.md", "server_requests.jsonl",
            "events.jsonl"} <= names and "checkpoint.sqlite" not in names
    calls = [json.loads((session / "llm" / f"{n:04d}.json").read_text()) for n in range(1, 5)]
    replies = [s.text for s in load_steps(REPLIES)]
    assert [c["reply"] for c in calls] == replies[:4]                       # replayed in order
    assert [m["role"] for m in calls[3]["messages"]] == ["system", "user", "assistant", "user"]
    assert "n_cols" in calls[3]["messages"][-1]["content"]                  # the error reached the repair
    for c in calls:
        user = c["messages"][1]["content"]
        assert c["model"] == "openai/qwen2.5-coder-32b-instruct"
        assert "## Retrieved knowledge" in user and "source: reference_kernels/rmsnorm/" in user

    planted = json.loads((session / "llm" / "0001.json").read_text())
    planted["n"], planted["messages"][1]["content"] = 9, "shape tiny-odd-hidden: 3 x 2880"
    (session / "llm" / "0009.json").write_text(json.dumps(planted))
    check = subprocess.run([sys.executable, str(ROOT / "tools" / "llm_session_summary.py"), str(session)],
                           capture_output=True, text=True, timeout=120)
    assert check.returncode == 1 and "FOUND tiny-odd-hidden" in check.stdout
