"""The map-elites loop with the tuner and a scripted evaluator: the archive fills over generations,
islands migrate, the tuner aims at cells, kill -9 then --resume loses and repeats nothing; and the
archive's pure functions (insertion, migration, selection, inspirations)."""

import json
import os
import subprocess
import sys

from aka.agent.qd import history
from aka.agent.qd.archive import insert, migrate
from aka.agent.qd.config import QDConfig
from aka.agent.qd.select import choose, inspirations
from aka.replay import archive as grid
from aka.replay import details, html
from aka.replay.story import steps
from aka.replay.load import load
from aka.sessions.journal import read_events
from aka.spec.search import Cell, Elite

from . import qd_kit

ROOT = qd_kit.ROOT


def _elite(version, cell, fitness, island=0):
    return Elite(version, f"h{version}", f"k{version}", cell, fitness, "eager", island, 0)


def test_insertion_keeps_the_fittest_per_cell_and_migration_rings_the_islands():
    cells, verdict, _ = insert({}, _elite("v001", "m0c2p0:unprofiled", 1.0), 0.01)
    assert verdict == "new cell"
    same, verdict, _ = insert(cells, _elite("v002", "m0c2p0:unprofiled", 1.005), 0.01)
    assert same == cells and verdict.startswith("not better than the elite v001")
    cells, verdict, replaced = insert(cells, _elite("v003", "m0c2p0:unprofiled", 1.5), 0.01)
    assert verdict == "replaced" and replaced == "v001" and cells["m0c2p0:unprofiled"]["version"] == "v003"
    other, _, _ = insert({}, _elite("v004", "m1c2p0:unprofiled", 0.8, island=1), 0.01)
    after, moves = migrate([cells, other], 1, 0.01, generation=3)
    assert {m["version"]: m["verdict"] for m in moves} == {"v003": "new cell", "v004": "new cell"}
    assert set(after[1]) == {"m0c2p0:unprofiled", "m1c2p0:unprofiled"} and after[1]["m0c2p0:unprofiled"]["island"] == 1


def test_inspirations_are_the_farthest_good_elites_of_other_cells():
    cells = {e.cell: e.to_dict() for e in (_elite("v001", "m0c2p0:unprofiled", 1.0), _elite("v002", "m1c2p0:unprofiled", 2.0),
                                            _elite("v003", "m3c3p2:unprofiled", 0.5), _elite("v004", "m2c3p2:unprofiled", 0.9))}
    parent = cells["m0c2p0:unprofiled"]
    picked = inspirations([cells], "m1c2p0:unprofiled", parent, 2)
    assert [p["version"] for p in picked] == ["v003", "v004"]            # distance 6, then 5; never the parent
    assert inspirations([cells], "m1c2p0:unprofiled", parent, 0) == []


def test_selection_is_seeded_and_covers_the_modes():
    cells = {"m0c2p0:unprofiled": _elite("v001", "m0c2p0:unprofiled", 1.0).to_dict()}
    cfg = QDConfig()
    first = choose([cells, {}], 0, cfg, 7, {})
    assert first.to_dict() == choose([cells, {}], 0, cfg, 7, {}).to_dict()
    assert choose([cells, {}], 1, cfg, 7, {}).mode == "seed"              # island 1 is empty
    modes = {choose([cells], n, cfg, 7, {}).mode for n in range(60)}
    assert {"improve", "axis", "weakest-axis", "all-axes", "fill-empty"} <= modes
    weakest = next(choose([cells], n, cfg, 7, {}) for n in range(60) if choose([cells], n, cfg, 7, {}).mode == "weakest-axis")
    assert weakest.target == "m1c2p0:unprofiled" and weakest.axis == "memory"
    reach = [Cell(2, 2, 2, "unknown", "fam@hi")]
    fill = next(d for n in range(80) if (d := choose([cells], n, cfg, 7, {}, reach)).mode == "fill-empty")
    assert fill.target == "m2c2p2:unprofiled/fam@hi"


def test_bad_settings_name_the_option():
    import pytest

    from aka.errors import InputError

    with pytest.raises(InputError, match="--islands must be an integer >= 1"):
        QDConfig.from_dict({"islands": 0})
    with pytest.raises(InputError, match="unknown"):
        QDConfig.from_dict({"island": 2})


def test_the_archive_fills_over_generations_with_migrations(tmp_path):
    out = qd_kit.run(tmp_path / "20260101-000000-rmsnorm", tmp_path / "log", qd_kit.config(iterations=8))
    events = read_events(out.session / "events.jsonl").events
    kinds = [e.kind for e in events]
    filed = [e.data for e in events if e.kind == "archive"]
    assert len(filed) == 8 and kinds.count("select") == 8 and kinds.count("migrate") >= 3
    cells = [f["archive"]["cells"] for f in filed]
    assert cells == sorted(cells) and cells[-1] >= 4                       # it only ever fills
    assert {f["island"] for f in filed} == {0, 1}
    selects = [e.data for e in events if e.kind == "select"]
    assert [s["mode"] for s in selects[:2]] == ["seed", "seed"]
    assert any(s["mode"] == "combine" for s in selects)                      # the dispatcher of the elites
    niches = {Cell.parse(f["cell"]).niche for f in filed}
    assert all("@" in n or n == "dispatcher" for n in niches)              # families x regions
    directed = [(s, f) for s, f in zip(selects, filed) if s["mode"] not in ("seed", "combine", "improve")]
    assert directed and any(f.get("hit_target") for _, f in directed)
    view = load(out.session)
    a = grid.rebuild(view)
    assert len(a.merged()) == cells[-1] and len(a.migrations) == kinds.count("migrate")
    text = "\n".join(grid.render(a))
    assert "compute \\ memory" in text and "island 1" in text and "filling: generation 0" in text
    page = html.render(view)
    assert page.count("<table class='grid'>") == 2 and "<a href='#v001'>v001</a>" in page
    step = next(s for s in steps(view) if s.kind == "archive")
    shown = details.text(view, step, steps(view))
    assert "── archive at this step ──" in shown and "1 cell(s) filled" in shown
    _the_report_shows_the_archive(out.session, events, a)


def _the_report_shows_the_archive(session, events, rebuilt):
    """report.md: each island's grid, the filling per generation and the migrations, from the
    journal (aka.agent.qd.history agrees with the replay's rebuild)."""
    h = history.replay(events)
    assert {k: e["version"] for k, e in h.merged().items()} == {k: e["version"] for k, e in rebuilt.merged().items()}
    assert [g["generation"] for g in h.generations] == [0, 1, 2, 3] and sum(g["filed"] for g in h.generations) == 8
    assert [g["cells"] for g in h.generations][-1] == len(h.merged()) and h.generations[0]["after_migration"] == [2, 2]
    report = (session / "report.md").read_text()
    assert report.count("| compute \\ memory | plain (m0) | vectorized (m1) | on-chip-tiled (m2) |") == 2
    assert "### Island 0 (" in report and "### Island 1 (" in report and "## Archive (map-elites)" in report
    first = next(e.data for e in events if e.kind == "archive")
    name = first["cell"].split("/", 1)[1]                                  # the tuner's niche: family@region
    assert f"`{first['version']}` {name} p" in report
    gen0 = h.generations[0]
    row = f"| 0 | 2 | {gen0['took']} | {gen0['filled'][0]} | {gen0['filled'][1]} | {gen0['cells']} | 2 / 2 |"
    assert row in report
    assert "- after generation 0: `v001` island 0 → 1 (new cell)" in report
    assert "![archive](plots/archive.png)" in report and (session / "plots" / "archive.png").stat().st_size > 0


def test_kill_9_then_resume_repeats_nothing_and_ends_where_an_uninterrupted_run_does(tmp_path):
    whole = qd_kit.run(tmp_path / "a" / "20260101-000000-rmsnorm", tmp_path / "a.log", qd_kit.config())
    ref = [(e.data["version"], e.data["cell"], e.data.get("verdict")) for e in read_events(whole.session / "events.jsonl").events
           if e.kind == "archive"]
    root, log = tmp_path / "b" / "20260101-000000-rmsnorm", tmp_path / "b.log"
    root.parent.mkdir()
    proc = subprocess.run([sys.executable, "-m", "tests.agent.qd_kit", str(root), str(log), "archive", "3"],
                          cwd=ROOT, capture_output=True, text=True, env={**os.environ, "AKA_DEVICE": "cpu"})
    assert proc.returncode == -9, proc.stderr[-2000:]
    out = qd_kit.run(root, log, qd_kit.config(), resumed=True)
    evaluated = log.read_text().split()
    assert len(evaluated) == len(set(evaluated)) == 8 and out.iterations == 8
    events = read_events(root / "events.jsonl").events
    got = [(e.data["version"], e.data["cell"], e.data.get("verdict")) for e in events if e.kind == "archive"]
    assert got[:2] == ref[:2] and sorted(set(got)) == sorted(set(ref))
    assert any(e.kind == "resume" for e in events)
    doc = json.loads(json.dumps(grid.document(grid.rebuild(load(root)))))
    assert doc["cells"] == len(grid.rebuild(load(whole.session)).merged())
