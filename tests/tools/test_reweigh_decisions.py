"""tools/reweigh_decisions.py on a synthetic session folder: a recorded comparison the weights
refused and today's per-shape clause promotes is listed; one whose verdict holds is not."""

import json

from . import load_tool


def _decision(folder, version, promote, reason, comparisons):
    d = folder / "candidates" / version
    d.mkdir(parents=True)
    (d / "decision.json").write_text(json.dumps({"promote": promote, "reason": reason, "comparisons": comparisons}))


def _cmp(shape, speedup, noise):
    return {"incumbent_us": 10.0, "candidate_us": 10.0 / speedup, "speedup": speedup, "noise": noise, "rounds": 5,
            "significant": speedup - 1.0 > noise, "method": "events", "shape": shape}


def test_lists_the_verdicts_the_rule_changes(tmp_path, capsys):
    tool = load_tool("reweigh_decisions")
    session = tmp_path / "sessions" / "20261207-000000-rmsnorm"
    session.mkdir(parents=True)
    (session / "session.json").write_text(json.dumps({"op": {"name": "rmsnorm"}}))
    # session 43's case: prefill shapes 4 % faster beyond their noise, a noisy decode shape level
    _decision(session, "v002", False, "within noise: 1.009x weighted, noise 0.025",
              [_cmp("llama3-8b-prefill-16k", 1.045, 0.010), _cmp("llama3-8b-decode-1", 0.995, 0.10)])
    _decision(session, "v003", False, "slower: 0.98x", [_cmp("llama3-8b-prefill-16k", 0.98, 0.01)])
    rows = tool.reweigh([tmp_path])
    assert [(r["version"], r["recorded"], r["now"]) for r in rows] == [("v002", False, True), ("v003", False, False)]
    assert rows[0]["weights"] and "its noise at llama3-8b-prefill-16k" in rows[0]["now_reason"]
    assert tool.main([str(tmp_path)]) == 0
    assert "2 recorded comparisons, 1 with another verdict today" in capsys.readouterr().out
