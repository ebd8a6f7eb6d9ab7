"""The loop's knowledge lookup: one knowledge base (one embedder, one index) for the whole run,
queried from the operator, the platform and the profile summary with hard scope filters first."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Sequence

from aka.knowledge.base import KnowledgeBase
from aka.knowledge.retrieve import build_query
from aka.spec.knowledge import Scope
from aka.spec.memory import Snippet
from aka.spec.op import OpSpec

SNIPPET_CHARS = 1500


class KnowledgeRetriever:
    """Wraps a `KnowledgeBase` for the loop."""

    def __init__(self, kb: KnowledgeBase):
        self.kb = kb

    def retrieve(self, spec: OpSpec, device: dict[str, Any], profile_summary: str, k: int) -> list[Snippet]:
        gpu = device.get("kind") == "cuda"
        text, scope = build_query(spec.name, profile_summary, vendor=device.get("vendor") if gpu else None,
                                  arch=device.get("arch") if gpu else None, dsl=spec.backend)
        return _snippets(self.kb.search(text, scope, k=k))

    def nearest_kernels(self, spec: OpSpec, device: dict[str, Any], k: int) -> list[Snippet]:
        """Reference kernels of the operators nearest this one, found by what its reference
        computes (its name and forward's source), with the platform filters but no operator
        filter: for an operator no kernel declares."""
        gpu = device.get("kind") == "cuda"
        text = f"{spec.name} kernel. {_forward_text(Path(spec.reference))}"[:1200]
        scope = Scope(layers=("reference",), vendor=device.get("vendor") if gpu else None,
                      arch=device.get("arch") if gpu else None, dsl=spec.backend)
        return _snippets(self.kb.search(text, scope, k=k))


def _snippets(hits: list) -> list[Snippet]:
    return [Snippet(source=h.chunk.source, title=h.chunk.title, text=h.chunk.text[:SNIPPET_CHARS],
                    layer=h.chunk.layer, score=h.score, ops=tuple(h.chunk.ops), params=dict(h.chunk.params))
            for h in hits]


def _forward_text(reference: Path) -> str:
    """The source of the reference's Model.forward (what the operator computes), or ''."""
    import ast

    try:
        source = reference.read_text()
        tree = ast.parse(source)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return ""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "forward":
            return " ".join((ast.get_source_segment(source, node) or "").split())
    return ""


def ensure_index(kb: KnowledgeBase, roots: Sequence[Path], progress: bool = True) -> dict[str, Any]:
    """Ingest the shipped corpus when the index is empty or stale (incremental: unchanged files
    are skipped by content hash). A line on stderr says so; a bar only when `progress`."""
    from aka.knowledge.ingest import ingest

    present = [r for r in roots if Path(r).exists()]
    if kb.count() == 0:
        print(f"aka: knowledge base empty: ingesting {', '.join(map(str, present))} (once; later runs "
              "re-index only changed files)", file=sys.stderr, flush=True)
    report = ingest(kb, present, progress=progress and sys.stderr.isatty())
    return report.to_dict()
