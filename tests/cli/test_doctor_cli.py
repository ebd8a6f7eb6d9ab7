"""`aka doctor` lists every sandbox layer as present or missing, in its text and its --json document,
beside the worker's isolation layers and how a profiler would be started."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from aka.cli.main import build_app
from aka.sandbox import LAYERS, Sandbox, wrap


def doctor(*args):
    return CliRunner().invoke(build_app(), ["doctor", *args])


def test_json_lists_every_sandbox_layer_as_this_machine_gives_it():
    res = doctor("--json")
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert list(data["sandbox_layers"]) == list(LAYERS)
    got = Sandbox().layers()
    for name, state in data["sandbox_layers"].items():
        assert state == "missing" if not got[name] else state.startswith("present"), (name, state)
    assert set(data["isolation_layers"]) == {"network", "pid"}     # the worker's, kept as before
    assert data["profiler_isolation"]


def test_text_names_each_layer_and_missing_ones(monkeypatch):
    monkeypatch.setattr(wrap, "probe", lambda: {name: name in ("limits", "die-with-parent") for name in LAYERS})
    res = doctor()
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    block = lines[lines.index("sandbox_layers:") + 1:][:len(LAYERS)]
    assert block == [f"  {name}: {'present' if name in ('limits', 'die-with-parent') else 'missing'}"
                     for name in LAYERS]
    assert "profiler_isolation: scrubbed environment only; the profiler and the candidate run without" in res.stdout
    data = json.loads(doctor("--json").stdout)
    assert data["sandbox_layers"]["network"] == "missing" and data["sandbox_layers"]["limits"] == "present"


def test_a_layer_given_a_certain_way_says_how(monkeypatch):
    monkeypatch.setattr(wrap, "probe", lambda: {name: ("nobody" if name == "privileges" else True) for name in LAYERS})
    data = json.loads(doctor("--json").stdout)
    assert data["sandbox_layers"]["privileges"] == "present (nobody)"
    assert data["sandbox_layers"]["mount"] == "present"
