"""Index statistics and retrieval quality (recall@k, MRR) on a labelled query set."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from aka.errors import InputError
from aka.knowledge.base import KnowledgeBase
from aka.knowledge.ingest import default_layer
from aka.spec.knowledge import FILTER_KEYS, LAYERS, Scope


def stats(kb: KnowledgeBase) -> dict[str, Any]:
    """Chunks and files per layer; files per op, vendor, arch and DSL ('any' for untagged)."""
    out: dict[str, Any] = {"layers": {}, "op": Counter(), "vendor": Counter(), "arch": Counter(), "dsl": Counter()}
    for layer in LAYERS:
        chunks = kb.chunks(layer)
        first = {c.source: c for c in chunks}
        out["layers"][layer] = {"chunks": len(chunks), "files": len(first)}
        for c in first.values():
            for key in FILTER_KEYS:
                out[key].update(c.tags(key) or ("any",))
    for key in FILTER_KEYS:
        out[key] = dict(sorted(out[key].items(), key=lambda kv: (-kv[1], kv[0])))
    out["total"] = {"chunks": sum(v["chunks"] for v in out["layers"].values()),
                    "files": sum(v["files"] for v in out["layers"].values())}
    return out


@dataclass(frozen=True)
class LabelledQuery:
    """One query of the labelled set and the documents (source paths) that must come back."""

    query: str
    expect: tuple[str, ...]
    layer: str
    filters: dict[str, str] = field(default_factory=dict)


def load_queries(path: str | Path) -> list[LabelledQuery]:
    """Read a labelled set: a YAML list of {query, expect: [paths], layer?, op?, vendor?, arch?, dsl?}."""
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise InputError(f"{p}: cannot read the labelled query set ({exc})") from None
    if not isinstance(data, list):
        raise InputError(f"{p}: expected a YAML list of queries")
    out = []
    for i, item in enumerate(data, start=1):
        if not isinstance(item, dict) or not item.get("query") or not item.get("expect"):
            raise InputError(f"{p}: query #{i}: needs 'query' and 'expect'")
        expect = (item["expect"],) if isinstance(item["expect"], str) else tuple(item["expect"])
        layer = item.get("layer") or default_layer(Path(expect[0]))
        if layer not in LAYERS:
            raise InputError(f"{p}: query #{i}: layer {layer!r} is not one of {', '.join(LAYERS)}")
        filters = {k: str(item[k]) for k in FILTER_KEYS if item.get(k)}
        out.append(LabelledQuery(str(item["query"]), expect, layer, filters))
    return out


def evaluate(kb: KnowledgeBase, queries: list[LabelledQuery], k: int = 5) -> dict[str, Any]:
    """recall@k and MRR per layer and overall; documents are ranked by their best chunk."""
    per: dict[str, list[tuple[float, float]]] = {}
    misses = []
    known = {layer: {c.source for c in kb.chunks(layer)} for layer in LAYERS}
    for q in queries:
        hits = kb.search(q.query, Scope(layers=(q.layer,), **q.filters), k=k * 5)
        ranked = list(dict.fromkeys(h.chunk.source for h in hits))[:k]
        found = [s for s in q.expect if s in ranked]
        recall = len(found) / len(q.expect)
        rr = next((1.0 / (i + 1) for i, s in enumerate(ranked) if s in q.expect), 0.0)
        per.setdefault(q.layer, []).append((recall, rr))
        if recall < 1.0:
            misses.append({"query": q.query, "layer": q.layer, "expected": list(q.expect), "got": ranked,
                           "not_indexed": [s for s in q.expect if s not in known[q.layer]]})
    def summary(rows: list[tuple[float, float]]) -> dict[str, float]:
        return {"queries": len(rows), f"recall@{k}": round(sum(r for r, _ in rows) / len(rows), 4),
                "mrr": round(sum(m for _, m in rows) / len(rows), 4)}
    everything = [row for rows in per.values() for row in rows]
    return {"k": k, "layers": {layer: summary(rows) for layer, rows in sorted(per.items())},
            "overall": summary(everything) if everything else {}, "misses": misses}
