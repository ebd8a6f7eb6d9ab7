"""Template-parameter search by shape bucket.

The greedy tuner picks the best configuration per shape; a held-out or unseen shape then falls back
to the nearest tuned shape. Here the operator's shapes are grouped into buckets learned from the
measurements: shapes join one bucket while a single configuration stays within `tolerance` of each
member's own best, merging the cheapest pair first. An unseen shape takes the bucket of its nearest
member in log-parameter space, so it gets a configuration that was good for a whole neighbourhood.

The bucketed search (`BucketedSearch.ask`) screens each family at its defaults, then spends its
evaluations per bucket in turn: the family best for the bucket, a point of it asked from Optuna's
TPE fitted on the bucket's summed log-times; the buckets are re-learned after every evaluation.

A configuration is a key 'family|{"PARAM": value, ...}'; a table maps keys to per-shape times
(µs; missing or failed: absent).

`choose_unseen_rule` decides how the tuner's per-shape dispatcher serves a shape it was not tuned
for: by its learned bucket (positions from the input tensors' dimensions, what the dispatcher sees
at run time) or by the nearest tuned shape's own best, whichever measured the lower slowdown when
each tuned shape in turn is left out.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass, field
from typing import Any

Table = dict[str, dict[str, float]]


def key(family: str, params: dict[str, Any]) -> str:
    return f"{family}|{json.dumps(params, sort_keys=True)}"


def split(config: str) -> tuple[str, dict[str, Any]]:
    family, _, params = config.partition("|")
    return family, json.loads(params or "{}")


def features(params: dict[str, Any]) -> tuple[float, ...]:
    """A shape's position: log2 of each numeric parameter, in name order."""
    return tuple(math.log2(max(1.0, float(params[k]))) for k in sorted(params)
                 if isinstance(params[k], (int, float)) and not isinstance(params[k], bool))


@dataclass
class Bucket:
    shapes: list[str]
    config: str
    regret: float
    """The worst member's slowdown against its own best measured configuration (0.02: 2 %)."""


@dataclass
class Buckets:
    buckets: list[Bucket]
    feats: dict[str, tuple[float, ...]] = field(default_factory=dict)

    def of(self, position: tuple[float, ...]) -> Bucket:
        """The bucket of an (unseen) shape: that of its nearest member."""
        def dist(sid: str) -> float:
            return math.dist(self.feats[sid], position)

        return min(self.buckets, key=lambda b: min(dist(s) for s in b.shapes))

    def to_dict(self) -> list[dict[str, Any]]:
        return [{"shapes": b.shapes, "config": b.config, "regret": round(b.regret, 4)} for b in self.buckets]


def position(input_shapes: list[list[int]] | tuple) -> tuple[float, ...]:
    """A shape's position as a dispatcher sees it at run time: log2 of every input tensor dimension."""
    return tuple(math.log2(max(1, int(d))) for dims in input_shapes for d in dims)


def log_size(input_shapes: list[list[int]] | tuple) -> float:
    """Log of the total input size in elements: the dispatcher's nearest-shape measure."""
    return math.log(max(1, sum(math.prod(int(d) for d in dims) for dims in input_shapes)))


def best_times(table: Table, shapes: list[str]) -> dict[str, float]:
    return {s: min((row[s] for row in table.values() if s in row), default=math.inf) for s in shapes}


def _fit(table: Table, members: list[str], best: dict[str, float]) -> tuple[str, float]:
    """The configuration with the smallest worst-member regret over MEMBERS."""
    out = ("", math.inf)
    for config, row in sorted(table.items()):
        if all(s in row for s in members):
            regret = max(row[s] / best[s] - 1.0 for s in members)
            if regret < out[1]:
                out = (config, regret)
    return out


def learn(table: Table, feats: dict[str, tuple[float, ...]], tolerance: float = 0.03) -> Buckets:
    """Buckets over the shapes of FEATS from the measured TABLE (agglomerative, cheapest merge first)."""
    shapes = [s for s in feats if any(s in row for row in table.values())]
    best = best_times(table, shapes)
    groups = [[s] for s in shapes]
    while len(groups) > 1:
        merges = []
        for i in range(len(groups)):
            for j in range(i + 1, len(groups)):
                members = groups[i] + groups[j]
                config, regret = _fit(table, members, best)
                if config and regret <= tolerance:
                    gap = min(math.dist(feats[a], feats[b]) for a in groups[i] for b in groups[j])
                    merges.append((regret, gap, i, j))
        if not merges:
            break
        _, _, i, j = min(merges)
        groups[i] = sorted(groups[i] + groups[j])
        del groups[j]
    buckets = [Bucket(g, *_fit(table, g, best)) for g in groups]
    return Buckets(sorted(buckets, key=lambda b: b.shapes), {s: feats[s] for s in shapes})


class BucketedSearch:
    """Asks the next configuration to evaluate (see the module docstring). Stateless between calls
    but for its seed: everything comes from the table measured so far."""

    def __init__(self, space: dict[str, list[dict[str, Any]]], defaults: dict[str, dict[str, Any]],
                 feats: dict[str, tuple[float, ...]], weights: dict[str, float] | None = None,
                 tolerance: float = 0.03, seed: int = 0):
        self.space, self.defaults, self.feats = space, defaults, feats
        self.weights = weights or {}
        self.tolerance, self.seed = tolerance, seed

    def ask(self, table: Table) -> str | None:
        for family in sorted(self.space):
            first = key(family, self.defaults[family])
            if first not in table:
                return first
        tried = set(table)
        buckets = learn(table, self.feats, self.tolerance).buckets
        turn = len(table) % max(1, len(buckets))
        for bucket in buckets[turn:] + buckets[:turn]:
            for family in self._families(table, bucket.shapes):
                point = _tpe(family, self.space[family], table, bucket.shapes, tried, self.seed + len(table))
                if point is not None:
                    return key(family, point)
        rest = [key(f, p) for f in sorted(self.space) for p in self.space[f] if key(f, p) not in tried]
        return rest[0] if rest else None

    def _families(self, table: Table, shapes: list[str]) -> list[str]:
        score: dict[str, float] = {}
        for config, row in table.items():
            if all(s in row for s in shapes):
                family = split(config)[0]
                value = sum(self.weights.get(s, 1.0) * math.log(row[s]) for s in shapes)
                score[family] = min(score.get(family, math.inf), value)
        return sorted(self.space, key=lambda f: (score.get(f, math.inf), f))


def _tpe(family: str, points: list[dict[str, Any]], table: Table, shapes: list[str], tried: set[str],
         seed: int) -> dict[str, Any] | None:
    """An untried point of FAMILY from TPE fitted on the summed log-times over SHAPES."""
    untried = [p for p in points if key(family, p) not in tried]
    if not untried:
        return None
    names = sorted(points[0]) if points and points[0] else []
    if not names:
        return untried[0]
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    values = {n: sorted({p[n] for p in points}, key=repr) for n in names}
    dists = {n: optuna.distributions.CategoricalDistribution(values[n]) for n in names}
    study = optuna.create_study(direction="minimize", sampler=optuna.samplers.TPESampler(seed=seed, n_startup_trials=3))
    for config, row in table.items():
        fam, params = split(config)
        if fam == family and set(params) == set(names):
            ok = all(s in row for s in shapes)
            study.add_trial(optuna.trial.create_trial(
                params=params, distributions=dists, value=sum(math.log(row[s]) for s in shapes) if ok else None,
                state=optuna.trial.TrialState.COMPLETE if ok else optuna.trial.TrialState.FAIL))
    for _ in range(25):
        trial = study.ask(dists)
        if key(family, dict(trial.params)) not in tried and dict(trial.params) in points:
            return dict(trial.params)
        study.tell(trial, state=optuna.trial.TrialState.PRUNED)
    return random.Random(seed).choice(untried)


BUCKET, NEAREST = "bucket", "nearest-shape"


@dataclass
class UnseenRule:
    """How a per-shape dispatcher serves a shape it was not tuned for, and the evidence for it."""

    rule: str
    """'bucket' (the configuration of the nearest tuned shape's learned bucket) or 'nearest-shape'
    (the own best of the tuned shape nearest by total input size)."""
    why: str
    """One sentence: the measured slowdowns, or why no buckets were learned."""
    buckets: Buckets | None = None
    """The buckets learned over every tuned shape (None when none could be)."""
    slowdown: dict[str, float] = field(default_factory=dict)
    """Rule -> weighted geometric-mean slowdown over the left-out tuned shapes (1.0: their own best)."""
    worst: dict[str, float] = field(default_factory=dict)
    """Rule -> the largest of those slowdowns."""
    left_out: list[dict[str, Any]] = field(default_factory=list)
    """Per left-out shape: the configuration each rule picked and its slowdown there."""

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "why": self.why,
                "buckets": self.buckets.to_dict() if self.buckets else None,
                "slowdown": {k: round(v, 4) for k, v in self.slowdown.items()},
                "worst": {k: round(v, 4) for k, v in self.worst.items()}, "left_out": self.left_out}


def choose_unseen_rule(table: Table, input_shapes: dict[str, list[list[int]]], weights: dict[str, float],
                       tolerance: float = 0.03) -> UnseenRule:
    """The rule for unseen shapes, decided on the measured TABLE over the tuned shapes.

    Each tuned shape in turn is left out and served as if unseen: by the bucket rule (buckets
    learned from the others, its nearest member's bucket) and by the nearest-shape rule (the best
    configuration of the other shape nearest by total input size); its slowdown is the picked
    configuration's time there over its own best. The rule with the lower weighted geometric-mean
    slowdown wins; a tie keeps the buckets. Without two tuned shapes with known tensors of one
    structure, no buckets are learned and the nearest-shape rule stays."""
    shapes = sorted(s for s, dims in input_shapes.items() if dims and any(s in row for row in table.values()))
    if len(shapes) < 2:
        return UnseenRule(NEAREST, "no shape buckets learned: fewer than two tuned shapes with known input tensors")
    if len({tuple(len(d) for d in input_shapes[s]) for s in shapes}) > 1:
        return UnseenRule(NEAREST, "no shape buckets learned: the tuned shapes' input tensors differ in number or rank")
    feats = {s: position(input_shapes[s]) for s in shapes}
    buckets = learn(table, feats, tolerance)
    best = best_times(table, shapes)
    rows = []
    for s in shapes:
        others = [o for o in shapes if o != s]
        sub = {c: {o: t for o, t in row.items() if o in others} for c, row in table.items()}
        by_bucket = learn(sub, {o: feats[o] for o in others}, tolerance).of(feats[s]).config
        nearest = min(others, key=lambda o: (abs(log_size(input_shapes[o]) - log_size(input_shapes[s])), o))
        own = min((c for c in sorted(table) if nearest in table[c]), key=lambda c: table[c][nearest])
        picked = {BUCKET: by_bucket, NEAREST: own}
        if all(s in table.get(c, {}) for c in picked.values()) and math.isfinite(best[s]):
            rows.append({"shape": s, "nearest": nearest,
                         **{f"{r} config": c for r, c in picked.items()},
                         **{r: round(table[c][s] / best[s], 4) for r, c in picked.items()}})
    if not rows:
        return UnseenRule(BUCKET, "shape buckets learned; no left-out shape could be measured under both rules, "
                                  "so the buckets are used", buckets)
    slowdown, worst = {}, {}
    for r in (BUCKET, NEAREST):
        total = sum(weights.get(x["shape"], 1.0) for x in rows)
        slowdown[r] = math.exp(sum(weights.get(x["shape"], 1.0) * math.log(x[r]) for x in rows) / total)
        worst[r] = max(x[r] for x in rows)
    rule = NEAREST if slowdown[NEAREST] < slowdown[BUCKET] - 1e-9 else BUCKET
    verdict = {BUCKET: "lower" if slowdown[BUCKET] < slowdown[NEAREST] - 1e-9 else "equal: the buckets are kept",
               NEAREST: "lower"}[rule]
    why = (f"each of the {len(rows)} tuned shapes left out in turn: the bucket rule {slowdown[BUCKET]:.3f}x "
           f"(worst {worst[BUCKET]:.3f}x), the nearest-shape rule {slowdown[NEAREST]:.3f}x "
           f"(worst {worst[NEAREST]:.3f}x) "
           f"slower than their own best; the {rule} rule measured {verdict}")
    return UnseenRule(rule, why, buckets, slowdown, worst, rows)
