"""Shape buckets learned from measurements, their assignment of unseen shapes, and the bucketed
search reaching the exhaustive best in fewer evaluations than the table holds."""

import math

from aka.propose.buckets import BucketedSearch, features, key, learn

FEATS = {"d1": features({"n_rows": 1, "hidden": 4096}), "d32": features({"n_rows": 32, "hidden": 4096}),
         "p4k": features({"n_rows": 4096, "hidden": 4096}), "p16k": features({"n_rows": 16384, "hidden": 4096})}


def _table():
    """Family 'split' wins the decode shapes, family 'rows' at ROWS=4 the prefill ones."""
    table = {}
    for rows in (1, 2, 4, 8):
        table[key("rows", {"ROWS": rows})] = {"d1": 5.0 + rows, "d32": 6.0 + rows, "p4k": 40.0 / rows + 20.0 * (rows == 8),
                                              "p16k": 160.0 / rows + 80.0 * (rows == 8)}
    for splits in (2, 4):
        table[key("split", {"SPLITS": splits})] = {"d1": 2.0 * splits / 2, "d32": 3.0 * splits / 2, "p4k": 50.0, "p16k": 200.0}
    return table


def test_buckets_split_decode_from_prefill_and_place_unseen_shapes():
    buckets = learn(_table(), FEATS, tolerance=0.05)
    groups = {tuple(b.shapes): b.config for b in buckets.buckets}
    assert groups == {("d1", "d32"): key("split", {"SPLITS": 2}), ("p16k", "p4k"): key("rows", {"ROWS": 4})}
    assert all(b.regret <= 0.05 for b in buckets.buckets)
    assert buckets.of(features({"n_rows": 8192, "hidden": 4096})).config == key("rows", {"ROWS": 4})
    assert buckets.of(features({"n_rows": 3, "hidden": 4096})).config == key("split", {"SPLITS": 2})
    one = learn(_table(), FEATS, tolerance=10.0)                         # everything tolerated: one bucket
    assert len(one.buckets) == 1 and one.buckets[0].shapes == sorted(FEATS)


def test_the_bucketed_search_finds_every_shapes_best_before_exhausting_the_table():
    table = _table()
    space = {"rows": [{"ROWS": r} for r in (1, 2, 4, 8)], "split": [{"SPLITS": s} for s in (2, 4)]}
    search = BucketedSearch(space, {"rows": {"ROWS": 1}, "split": {"SPLITS": 4}}, FEATS, seed=1)
    seen = {}
    best = {s: min(r[s] for r in table.values()) for s in FEATS}
    for n in range(1, len(table) + 1):
        config = search.ask(seen)
        assert config not in seen
        seen[config] = table[config]
        if all(min(r[s] for r in seen.values()) <= best[s] for s in FEATS):
            break
    assert n < len(table) and math.isfinite(n)
    assert search.ask(dict(table)) is None                                # nothing left

