"""`aka optimize OP --model M --api-base URL` end to end on the CPU interpreter, against a scripted
OpenAI-compatible server on 127.0.0.1: keys stay in the environment, a refused key is exit 3."""

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.propose.llm_server import ScriptedServer, error, reply
from tests.propose.replies import PROSE_ONLY, SLOW

ROOT = Path(__file__).parents[2]
OP = ROOT / "tests" / "propose" / "fixtures" / "rmsnorm_llm"
KEY = "sk-test-do-not-record-4f2a"


def aka(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "aka", *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "AKA_DEVICE": "cpu", **(env or {})})


def test_an_llm_session_records_its_calls_and_never_the_key(tmp_path):
    with ScriptedServer([reply(SLOW), reply(PROSE_ONLY)]) as srv:
        out = aka("optimize", OP, "--model", "qwen2.5-coder-32b", "--api-base", srv.url, "--iterations", "2",
                  "--kb", "none", "--sessions-dir", tmp_path / "s", "--json", cwd=tmp_path,
                  env={"OPENAI_API_KEY": KEY})
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["best"] == "v001" and doc["llm"]["calls"] == 2 and doc["llm"]["tokens"] == 3200
    assert srv.requests[0]["authorization"] == f"Bearer {KEY}"         # the key came from the environment
    session = Path(doc["session"])
    assert sorted(p.name for p in (session / "llm").glob("*.json")) == ["0001.json", "0002.json"]
    meta = json.loads((session / "session.json").read_text())
    assert meta["llm"] == {"model": "qwen2.5-coder-32b", "api_base": srv.url}
    for f in session.rglob("*"):
        if f.is_file() and f.suffix in (".json", ".jsonl", ".md", ".py", ".txt"):
            assert KEY not in f.read_text(errors="replace"), f


def test_a_refused_key_exits_3_and_the_session_resumes_with_its_model(tmp_path):
    with ScriptedServer([error(401, "Incorrect API key provided")]) as srv:
        out = aka("optimize", OP, "--model", "qwen2.5-coder-32b", "--api-base", srv.url, "--iterations", "1",
                  "--kb", "none", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 3 and "refused the credentials (401)" in out.stderr and "--resume" in out.stderr
    session = next((tmp_path / "s").iterdir())
    with ScriptedServer([reply(PROSE_ONLY)]) as srv2:
        out = aka("optimize", "--resume", session.name, "--api-base", srv2.url, "--sessions-dir", tmp_path / "s",
                  "--kb", "none", "--json", cwd=tmp_path)
    assert len(srv2.requests) == 1 and srv2.requests[0]["body"]["model"] == "qwen2.5-coder-32b", out.stderr
    assert out.returncode == 1 and json.loads(out.stdout)["iterations"] == 1       # no kernel found: exit 1


def test_api_base_without_a_model_is_a_usage_error(tmp_path):
    out = aka("optimize", OP, "--api-base", "http://127.0.0.1:9/v1", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 2 and "--api-base needs --model" in out.stderr and not (tmp_path / "s").exists()


def test_an_unreachable_endpoint_exits_3_and_leaves_a_resumable_session(tmp_path):
    with ScriptedServer([]) as srv:
        url = srv.url                                   # closed on leaving: nothing listens there now
    out = aka("optimize", OP, "--model", "qwen2.5-coder-32b", "--api-base", url, "--iterations", "1",
              "--kb", "none", "--sessions-dir", tmp_path / "s", cwd=tmp_path)
    assert out.returncode == 3 and "cannot be reached" in out.stderr and url in out.stderr, out.stderr
    session = next((tmp_path / "s").iterdir())
    last = json.loads((session / "events.jsonl").read_text().splitlines()[-1])
    assert last["kind"] == "error" and last["data"]["resumable"] and last["data"]["exit_code"] == 3
