"""The scripted server's reply files: a folder of Markdown replies or JSONL steps; bad input names
the file and line; a spent script answers 400."""

import json

import httpx
import pytest

from aka.errors import InputError
from aka.propose.scripted_server import ScriptedServer, load_steps


def test_a_folder_of_markdown_replies_in_name_order(tmp_path):
    (tmp_path / "02-second.md").write_text("second")
    (tmp_path / "01-first.md").write_text("first")
    (tmp_path / "notes.txt").write_text("not a reply")
    assert [s.text for s in load_steps(tmp_path)] == ["first", "second"]


def test_jsonl_steps_and_what_is_wrong_with_a_bad_line(tmp_path):
    good = tmp_path / "r.jsonl"
    good.write_text(json.dumps({"text": "hi", "note": "first"}) + "\n\n"
                    + json.dumps({"status": 429, "headers": {"Retry-After": "2"}}) + "\n")
    steps = load_steps(good)
    assert steps[0].text == "hi" and steps[1].status == 429 and steps[1].headers == {"Retry-After": "2"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"text": "ok"}) + "\n" + json.dumps({"txt": "typo"}) + "\n")
    with pytest.raises(InputError, match=r"bad.jsonl:2: unknown key 'txt'"):
        load_steps(bad)
    (tmp_path / "torn.jsonl").write_text('{"text": \n')
    with pytest.raises(InputError, match=r"torn.jsonl:1: not a JSON object"):
        load_steps(tmp_path / "torn.jsonl")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match=r"empty: no \*\.md replies"):
        load_steps(tmp_path / "empty")


def test_usage_is_estimated_and_a_spent_script_answers_400(tmp_path):
    with ScriptedServer(load_steps(_one(tmp_path, "x" * 400))) as srv:
        first = httpx.post(srv.url + "/chat/completions", json={"messages": [{"role": "user", "content": "y" * 80}]})
        second = httpx.post(srv.url + "/chat/completions", json={"messages": []})
    assert first.json()["usage"] == {"prompt_tokens": 20, "completion_tokens": 100, "total_tokens": 120}
    assert second.status_code == 400 and "no more scripted replies" in second.json()["error"]["message"]


def _one(folder, text):
    (folder / "01.md").write_text(text)
    return folder
