"""The model calls of the H200 LLM session (`llm/NNNN.json`) in every replay view: each call beside
the proposal it wrote, its figures and prompt sections, the reply; and a damaged copy (a call file
removed, one torn, the journal cut before the last proposal) shown as far as it goes."""

import json
import re

from typer.testing import CliRunner

from aka.cli.main import build_app
from tests.replay.conftest import snapshot

runner = CliRunner()
HELD_OUT = ("odd-rows-5120", "qwen2.5-1.5b-odd", "tiny-odd-hidden", '"hidden": 5120', '"hidden": 2880',
            "4 * n_rows * hidden")
"""The rmsnorm operator's held-out shape ids and parameters and its roofline expression."""


def run(*args):
    return runner.invoke(build_app(), [str(a) for a in args])


def step_block(out: str, seq: int) -> str:
    """The lines of `--print` from step #SEQ up to the next step."""
    m = re.search(rf"^  #{seq} .*?(?=^  #\d)", out, re.M | re.S)
    assert m, f"no step #{seq}"
    return m.group(0)


def test_print_shows_the_call_behind_each_proposal(h200_session):
    before = snapshot(h200_session)
    res = run("replay", h200_session, "--print")
    assert res.exit_code == 0, res.output
    out = res.stdout
    assert ("model: openai/qwen2.5-coder-32b-instruct at http://127.0.0.1:36663/v1; 5 model call(s) "
            "(4 propose, 1 repair) to openai/qwen2.5-coder-32b-instruct: 23213 tokens in, 2852 out, $0.0000") in out
    first = step_block(out, 3)
    assert ("model call 1 (propose) openai/qwen2.5-coder-32b-instruct: 2862 tokens in / 544 out, $0.0000, 0.32 s, "
            "1 attempt(s), finish stop; code: fenced") in first
    assert ("prompt 11445 chars in 2 message(s): system 4488; user: Operator 1638, Incumbent 100, "
            "Retrieved knowledge 4643, Memory of this search 331, Task 241") in first
    assert "profile summary: not in the prompt; retrieved snippets: 6" in first
    assert "says: I'll start with a straightforward, correct Triton RMSNorm" in first
    second = step_block(out, 10)
    assert "profile summary: included; retrieved snippets: 5 (7 more left out by the size cap)" in second
    repair = step_block(out, 20)
    assert "model call 4 (repair)" in repair and "; assistant 2589; user: Repair 6644" in repair
    assert "says: The kernel used `n_cols`" in repair
    assert "model call" not in step_block(out, 25)                    # a tuner point: no call
    assert "model call 5 (propose)" in step_block(out, 45)
    assert "## Operator" not in out and "```" not in out               # compact: no prompt text
    assert snapshot(h200_session) == before


def test_print_calls_gives_each_prompt_and_reply_as_recorded(h200_session):
    res = run("replay", h200_session, "--print", "--calls")
    assert res.exit_code == 0, res.output
    repair = step_block(res.stdout, 20)
    record = json.loads((h200_session / "llm" / "0004.json").read_text())
    assert "── request message 3 (user): Repair (6644 chars) ──" in repair
    assert "── request message 2 (assistant): the model's earlier reply (2589 chars) ──" in repair
    for text in [m["content"] for m in record["messages"]] + [record["reply"]]:
        for line in text.splitlines():
            assert ("        " + line).rstrip() in repair                # every line, as recorded
    assert len(res.stdout.splitlines()) > 4 * len(run("replay", h200_session, "--print").stdout.splitlines())
    bad = run("replay", h200_session, "--calls")
    assert bad.exit_code == 2 and "--calls goes with --print" in bad.output


def test_calls_show_the_record_as_is_and_no_held_out_data(h200_session, tmp_path):
    """What replay shows of a call is the request it recorded: no held-out shape or roofline
    expression enters it, in the text, the JSON calls or the HTML call blocks."""
    doc = json.loads(run("replay", h200_session, "--json").stdout)
    page = tmp_path / "page.html"
    assert run("replay", h200_session, "--html", page).exit_code == 0
    blocks = re.findall(r"<div class='call'.*?</details></div>", page.read_text(), re.S)
    full = run("replay", h200_session, "--print", "--calls").stdout
    shown = [step_block(full, seq) for seq in (3, 10, 15, 20, 45)]
    assert len(blocks) == 5
    for text in blocks + [json.dumps(doc["calls"])] + [s[s.index("\n"):] for s in shown]:
        assert not [h for h in HELD_OUT if h in text]
    for call in doc["calls"]:
        record = json.loads((h200_session / call["file"]).read_text())
        assert call["messages"] == record["messages"] and call["reply"] == record["reply"]
        for i, message in enumerate(record["messages"]):             # the sections cut, nothing left out
            mine = [sec["chars"] for sec in call["sections"] if sec["message"] == i]
            assert sum(mine) + len(mine) - 1 == len(message["content"])


def test_json_attaches_the_calls_to_their_events(h200_session):
    doc = json.loads(run("replay", h200_session, "--json").stdout)
    assert doc["llm"]["model"] == "openai/qwen2.5-coder-32b-instruct" and doc["llm"]["calls"] == 5
    assert (doc["llm"]["prompt_tokens"], doc["llm"]["completion_tokens"], doc["llm"]["cost_usd"]) == (23213, 2852, 0.0)
    assert doc["llm"]["purposes"] == {"propose": 4, "repair": 1}
    proposals = [e for e in doc["events"] if e["kind"] == "propose"]
    assert [e["calls"] for e in proposals] == [[1], [2], [3], [4], [], [], [], [], [5]]
    calls = doc["calls"]
    assert [c["n"] for c in calls] == [1, 2, 3, 4, 5]
    assert [c["version"] for c in calls] == ["v001", "v002", "v003", "v004", "v009"]
    assert [c["steps"] for c in calls] == [[3], [10], [15], [20], [45]]
    assert [c["purpose"] for c in calls] == ["propose", "propose", "propose", "repair", "propose"]
    assert [c["profile_included"] for c in calls] == [False, True, True, True, True]
    assert [c["snippets"] for c in calls] == [6, 5, 5, 5, 5]
    repair = calls[3]
    assert [(s["message"], s["role"]) for s in repair["sections"]][-2:] == [(2, "assistant"), (3, "user")]
    assert repair["sections"][-1]["title"] == "Repair" and repair["sections"][-1]["chars"] == 6644
    assert repair["file"] == "llm/0004.json" and repair["retries"] == [] and repair["attempts"] == 1
    assert repair["prose"].startswith("The kernel used `n_cols`")


def test_html_shows_the_calls_per_candidate_with_collapsible_sections(h200_session, tmp_path):
    page = tmp_path / "page.html"
    assert run("replay", h200_session, "--html", page).exit_code == 0
    text = page.read_text()
    assert "5 model call(s) (4 propose, 1 repair)" in text.split("<h2>Summary</h2>")[0]      # the header
    v004 = re.search(r"<section class='version' id='v004'>.*?</section>", text, re.S).group(0)
    assert "model call 4 (repair)" in v004 and "profile summary: included" in v004
    assert "<details class='call-section'><summary>user: Repair (6644 chars)</summary><pre>## Repair" in v004
    assert "<details class='call-reply'><summary>reply (2137 chars)</summary><pre>The kernel used" in v004
    v005 = re.search(r"<section class='version' id='v005'>.*?</section>", text, re.S).group(0)
    assert "model call" not in v005 and "Other model calls" not in text


def damage(session):
    """A call file removed, one torn mid-write."""
    (session / "llm" / "0002.json").unlink()
    torn = session / "llm" / "0004.json"
    torn.write_bytes(torn.read_bytes()[:5000])


def test_a_missing_or_torn_call_is_listed_never_fatal(h200_session, tmp_path):
    damage(h200_session)
    before = snapshot(h200_session)
    res = run("replay", h200_session, "--print")
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "llm/0002.json: missing (the journal's propose event #10 names call 2)" in out
    assert "llm/0004.json: unreadable (JSONDecodeError" in out
    assert "model call 2: llm/0002.json is missing or unreadable" in step_block(out, 10)
    assert "model call 4: llm/0004.json is missing or unreadable" in step_block(out, 20)
    assert "model call 5 (propose)" in step_block(out, 45) and "3 model call(s) (3 propose)" in out
    doc = json.loads(run("replay", h200_session, "--json").stdout)
    assert [c["n"] for c in doc["calls"]] == [1, 3, 5]
    assert [e["calls"] for e in doc["events"] if e["kind"] == "propose"][:4] == [[1], [2], [3], [4]]
    assert sum("llm/" in p for p in doc["problems"]) == 2
    page = tmp_path / "page.html"
    assert run("replay", h200_session, "--html", page).exit_code == 1
    assert "model call 2: llm/0002.json is missing or unreadable" in page.read_text()
    assert snapshot(h200_session) == before


def test_calls_behind_no_event_retries_and_odd_records(h200_session, tmp_path):
    """The journal cut before the last proposal (its call is shown apart, not a problem); a retried
    call and a reused one; a call file that is no record, one of another format, and a gap in the
    numbering are listed."""
    journal = h200_session / "events.jsonl"
    events = [json.loads(line) for line in journal.read_text().splitlines()]
    events[3]["data"]["reused"] = True
    journal.write_text("".join(json.dumps(e) + "\n" for e in events if e["seq"] < 45))
    first = json.loads((h200_session / "llm" / "0001.json").read_text())
    (h200_session / "llm" / "0001.json").write_text(json.dumps({
        **first, "attempts": 2, "retries": ["attempt 1: transient (429): rate limited; retried after 3 s (Retry-After)"]}))
    (h200_session / "llm" / "0007.json").write_text("[]")
    record = json.loads((h200_session / "llm" / "0003.json").read_text())
    (h200_session / "llm" / "0003.json").write_text(json.dumps({**record, "format": "aka.llm-call/0",
                                                                  "messages": "not a list"}))
    res = run("replay", h200_session, "--print")
    assert res.exit_code == 1, res.output
    out = res.stdout
    assert "model call 5 (propose) is behind no journal event: The one-row kernel is still" in out
    assert "2 attempt(s), finish stop; code: fenced; reused from the session's record, not sent again" in out
    assert "retry: attempt 1: transient (429): rate limited; retried after 3 s (Retry-After)" in step_block(out, 3)
    assert "llm/0007.json: not a call record (a JSON list)" in out
    assert "llm/0006.json: missing (later calls are recorded)" in out
    assert "llm/0003.json: format 'aka.llm-call/0'" in out and "llm/0003.json: its request messages" in out
    assert "model call 3 (propose)" in step_block(out, 15) and "prompt 0 chars in 0 message(s)" in out
    page = tmp_path / "page.html"
    run("replay", h200_session, "--html", page)
    other = page.read_text().split("<h2 id='other-calls'>Other model calls</h2>")[1]
    assert "behind no journal event" in other and "model call 5 (propose)" in other
