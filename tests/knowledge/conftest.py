"""Fixtures for the knowledge-base tests: stores, a fake embedder and small document trees."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from aka.knowledge import ChromaKnowledgeBase, HashEmbedder, InMemoryKnowledgeBase

REPO = Path(__file__).resolve().parents[2]


def write(root: Path, rel: str, text: str) -> Path:
    """Write a dedented file under root, creating folders."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return path


HOPPER = """
---
title: Hopper TMA tricks
ops: [gemm]
vendors: [nvidia]
archs: [sm90]
dsl: [cuda]
---
# Hopper TMA tricks

## Bulk copies
Use the tensor memory accelerator with an mbarrier for asynchronous bulk tile copies.
"""

AMD = """
---
title: LDS padding on CDNA
vendors: [amd]
archs: [gfx942]
dsl: [hip, triton]
---
# LDS padding on CDNA

## Padding
Pad each LDS row by one word so a wavefront reading a column spreads over all banks.
"""

GENERAL = """
---
title: Coalesced loads
techniques: [coalescing]
---
# Coalesced loads

## Why
Consecutive lanes should read consecutive addresses so a warp needs few sectors.

## Metric
The Nsight Compute metric lts__t_sector_hit_rate reports the L2 sector hit rate.
"""

SOFTMAX = """
---
title: Online softmax
ops: [softmax]
---
# Online softmax
Keep a running maximum and rescale the running sum whenever the maximum grows.
"""


@pytest.fixture
def docs_tree(tmp_path: Path) -> Path:
    """A small docs folder: a Hopper-only doc, an AMD-only doc, a general doc, a softmax doc."""
    root = tmp_path / "repo"
    (root / "pyproject.toml").parent.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[project]\nname='x'\n")
    for name, text in (("hopper.md", HOPPER), ("amd.md", AMD), ("general.md", GENERAL), ("softmax.md", SOFTMAX)):
        write(root, f"knowledge/{name}", text)
    return root


@pytest.fixture(params=["memory", "chroma"])
def store(request, tmp_path: Path):
    """Every backend, with the fake embedder."""
    if request.param == "memory":
        return InMemoryKnowledgeBase(HashEmbedder())
    return ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
