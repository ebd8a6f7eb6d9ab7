"""Knowledge-base benchmark: ingestion rate and query latency, real embedder, CPU only.

    .venv/bin/python tools/kb_bench.py [--synthetic 10000] [--queries 100] [--json]

Measures (1) the current corpus (knowledge/ and reference_kernels/) and (2) a synthetic corpus of
N chunks, each ingested into a fresh temporary Chroma index with all-MiniLM-L6-v2. The model is
loaded (and warmed) before timing; ingestion time covers reading, chunking, embedding and writing.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from aka.knowledge import ChromaKnowledgeBase, MiniLMEmbedder, Scope, ingest
from aka.knowledge.quality import load_queries

REPO = Path(__file__).resolve().parents[1]
WORDS = ("warp occupancy register spill shared memory bank conflict coalesced load vector store "
         "tensor core tile pipeline stage barrier latency bandwidth dram l2 cache hit rate softmax "
         "rmsnorm layernorm gemm attention split reduction atomic persistent kernel launch graph "
         "triton cuda hip wavefront lds mfma wgmma tma fp8 bf16 scale epilogue prologue fusion").split()


def synthetic_corpus(folder: Path, chunks: int, per_file: int = 20, seed: int = 0) -> None:
    """Markdown files of `per_file` sections each, one chunk per section, `chunks` in total."""
    rng = random.Random(seed)
    for f in range(chunks // per_file):
        lines = [f"---\ntitle: Synthetic note {f}\nvendors: [{rng.choice(['nvidia', 'amd'])}]\n---\n"]
        for s in range(per_file):
            words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 90)))
            lines.append(f"## Section {s} on {rng.choice(WORDS)} and {rng.choice(WORDS)}\n{words}.\n")
        (folder / f"note_{f:05d}.md").write_text("\n".join(lines))


def measure(kb: ChromaKnowledgeBase, paths: list[Path], queries: list[str], root: Path) -> dict:
    """Ingest once (timed), then time every query (after one warm-up search)."""
    start = time.perf_counter()
    report = ingest(kb, paths, root=root)
    seconds = time.perf_counter() - start
    kb.search(queries[0], Scope(), k=5)
    latencies = []
    for q in queries:
        t = time.perf_counter()
        kb.search(q, Scope(), k=5)
        latencies.append((time.perf_counter() - t) * 1000)
    latencies.sort()
    return {"chunks": kb.count(), "files": len(report.added), "ingest_s": round(seconds, 2),
            "chunks_per_s": round(report.chunks_added / seconds, 1), "queries": len(latencies),
            "p50_ms": round(statistics.median(latencies), 1),
            "p95_ms": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=10_000, help="synthetic corpus size in chunks (0: skip)")
    parser.add_argument("--queries", type=int, default=100, help="queries timed per corpus")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    embedder = MiniLMEmbedder()
    t = time.perf_counter()
    embedder.embed(["warm-up"])
    load_s = time.perf_counter() - t
    labelled = [q.query for q in load_queries(REPO / "tests" / "knowledge" / "queries.yaml")]
    queries = (labelled * (args.queries // len(labelled) + 1))[:args.queries]
    out = {"model_load_s": round(load_s, 2)}
    with tempfile.TemporaryDirectory() as tmp:
        kb = ChromaKnowledgeBase(Path(tmp) / "current", embedder)
        out["current"] = measure(kb, [REPO / "knowledge", REPO / "reference_kernels"], queries, REPO)
        print(f"current corpus: {out['current']}", file=sys.stderr)
        if args.synthetic:
            corpus = Path(tmp) / "synthetic"
            corpus.mkdir()
            synthetic_corpus(corpus, args.synthetic)
            kb = ChromaKnowledgeBase(Path(tmp) / "synthetic-kb", embedder)
            out["synthetic"] = measure(kb, [corpus], queries, Path(tmp))
            print(f"synthetic corpus: {out['synthetic']}", file=sys.stderr)
    print(json.dumps(out, indent=1) if args.json else out)


if __name__ == "__main__":
    main()
