"""`aka kb`: ingest, search, stats, eval and rebuild the knowledge base (thin; the work is in aka.knowledge)."""

from __future__ import annotations

import functools
import sys
import textwrap
from pathlib import Path
from typing import Optional

import typer

from aka.cli.common import handled, print_json
from aka.errors import InputError, KnowledgeError

KB_DIR_HELP = "Index folder (default: $AKA_KB_DIR, else .aka/kb at the repository root)."
EMBEDDER_HELP = "Embedder for a new index: minilm-l6-v2 (default) or hash (model-free, for tests)."


def _guarded(fn):
    """Run a command inside `handled()`: aka's errors become stderr text and the shared exit status
    (and, under --json, one JSON document on stdout)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with handled(json_out=bool(kwargs.get("as_json"))):
            return fn(*args, **kwargs)
    return wrapper


def _check_filters(kb, scope) -> None:
    """An --op/--vendor/--arch/--dsl value no chunk is tagged with is a mistake, not a filter: untagged
    chunks match every value, so a misspelt one would silently filter nothing."""
    if kb.count() == 0:
        return
    known = kb.tag_values()
    for key, value in scope.active().items():
        if value not in known[key]:
            names = ", ".join(["any", *sorted(known[key])])
            raise InputError(f"--{key} {value!r}: no chunk in the index is tagged with it (known: {names})")


def _open(kb_dir: Optional[Path], embedder: Optional[str] = None):
    from aka.knowledge.chroma import ChromaKnowledgeBase
    from aka.knowledge.embed import make_embedder

    return ChromaKnowledgeBase(kb_dir, make_embedder(embedder) if embedder else None)


def _report_lines(report, as_json: bool) -> None:
    for skip in report.skipped:
        typer.echo(f"skipped {skip}", err=True)
    if as_json:
        print_json(report.to_dict())
    else:
        typer.echo(f"added {len(report.added)}, updated {len(report.updated)}, removed {len(report.removed)}, "
                   f"unchanged {report.unchanged} files; {report.chunks_added} chunks indexed, "
                   f"{report.chunks_removed} removed; {len(report.skipped)} skipped; {report.seconds:.1f} s")


def _bad_metadata(report) -> bool:
    return any(s.reason.startswith("field '") for s in report.skipped)


@_guarded
def ingest_cmd(
    paths: list[Path] = typer.Argument(..., help="Files or folders to index."),
    layer: Optional[str] = typer.Option(None, "--layer", help="reference | docs | upstream (default: "
                                        "reference under a reference_kernels folder, else docs)."),
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help=KB_DIR_HELP),
    embedder: Optional[str] = typer.Option(None, "--embedder", help=EMBEDDER_HELP),
    max_bytes: int = typer.Option(2_000_000, "--max-bytes", help="Skip (and report) files larger than this."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document on stdout."),
) -> None:
    """Index files incrementally: unchanged files add nothing, changed ones replace their chunks."""
    from aka.knowledge.ingest import ingest

    kb = _open(kb_dir, embedder)
    report = ingest(kb, paths, layer, max_bytes=max_bytes, progress=sys.stderr.isatty())
    _report_lines(report, as_json)
    if _bad_metadata(report):
        raise typer.Exit(1)


@_guarded
def search_cmd(
    query: str = typer.Argument(..., help="What to look for (words, metric or API names, error text)."),
    layer: Optional[list[str]] = typer.Option(None, "--layer", help="Restrict to a layer (repeatable)."),
    op: Optional[str] = typer.Option(None, "--op", help="Operator, e.g. rmsnorm."),
    vendor: Optional[str] = typer.Option(None, "--vendor", help="nvidia | amd | intel."),
    arch: Optional[str] = typer.Option(None, "--arch", help="e.g. sm90, gfx942; 'any' does not filter."),
    dsl: Optional[str] = typer.Option(None, "--dsl", help="e.g. triton, cuda, hip."),
    k: int = typer.Option(5, "-k", "--top", help="How many chunks to return."),
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help=KB_DIR_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document on stdout."),
) -> None:
    """Hybrid search (dense + BM25, fused) inside hard scope filters."""
    from aka.spec.knowledge import LAYERS, Scope

    if not query.strip():
        raise InputError("QUERY is empty: give words, metric or API names, or error text to look for")
    if k < 1:
        raise InputError("-k: must be at least 1")
    try:
        scope = Scope(layers=tuple(layer) if layer else LAYERS, op=op, vendor=vendor, arch=arch, dsl=dsl)
    except ValueError as exc:
        raise InputError(f"--layer: {exc}") from None
    kb = _open(kb_dir)
    if kb.count() == 0:
        typer.echo("aka kb: the index is empty; run `aka kb ingest knowledge reference_kernels`", err=True)
    _check_filters(kb, scope)
    hits = kb.search(query, scope, k=k)
    if as_json:
        print_json({"query": query, "scope": {"layers": list(scope.layers), **scope.active()},
               "results": [h.to_dict() for h in hits]})
        return
    for rank, hit in enumerate(hits, start=1):
        c = hit.chunk
        typer.echo(f"{rank}. [{c.layer}] {c.source}:{c.line}  {' > '.join(c.heading)}  (score {hit.score:.4f})")
        body = c.text.split("\n", 1)[-1]
        typer.echo(textwrap.indent(textwrap.shorten(body, 300), "   "))


@_guarded
def stats_cmd(
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help=KB_DIR_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document on stdout."),
) -> None:
    """Counts per layer, op, vendor, architecture and DSL."""
    from aka.knowledge.quality import stats

    kb = _open(kb_dir)
    data = {"kb_dir": str(kb.path), "embedder": kb.embedder.name, **stats(kb)}
    if as_json:
        print_json(data)
        return
    typer.echo(f"{data['kb_dir']} ({data['embedder']})")
    for layer, row in data["layers"].items():
        typer.echo(f"  {layer:<10} {row['files']:>5} files {row['chunks']:>7} chunks")
    for key in ("op", "vendor", "arch", "dsl"):
        typer.echo(f"  {key:<7} " + ", ".join(f"{name} {n}" for name, n in data[key].items()))


@_guarded
def eval_cmd(
    queries: Optional[Path] = typer.Option(None, "--queries", help="Labelled set (default: tests/knowledge/queries.yaml)."),
    k: int = typer.Option(5, "-k", help="Cut-off for recall@k."),
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help=KB_DIR_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document on stdout."),
) -> None:
    """recall@k and MRR per layer on the labelled query set."""
    from aka.knowledge.paths import repo_root
    from aka.knowledge.quality import evaluate, load_queries

    labelled = load_queries(queries or repo_root() / "tests" / "knowledge" / "queries.yaml")
    kb = _open(kb_dir)
    if kb.count() == 0:
        raise KnowledgeError(f"{kb.path}: the index is empty; run `aka kb ingest knowledge reference_kernels` first")
    result = evaluate(kb, labelled, k=k)
    if as_json:
        print_json(result)
        return
    for miss in result["misses"]:
        typer.echo(f"miss: {miss['query']!r}: expected {miss['expected']}, got {miss['got']}", err=True)
    for layer, row in {**result["layers"], "overall": result["overall"]}.items():
        typer.echo(f"{layer:<10} queries {row['queries']:>3}  recall@{k} {row[f'recall@{k}']:.3f}  MRR {row['mrr']:.3f}")


@_guarded
def rebuild_cmd(
    paths: Optional[list[Path]] = typer.Argument(None, help="More paths to ingest after the rebuild."),
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help=KB_DIR_HELP),
    embedder: Optional[str] = typer.Option(None, "--embedder", help=EMBEDDER_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document on stdout."),
) -> None:
    """Empty the index (even one from an incompatible version) and ingest its recorded paths again."""
    from aka.knowledge.chroma import wipe
    from aka.knowledge.ingest import ingest

    roots = wipe(kb_dir)
    kb = _open(kb_dir, embedder)
    reports = {}
    for layer, folders in roots.items():
        present = [f for f in folders if Path(f).exists()]
        for gone in sorted(set(folders) - set(present)):
            typer.echo(f"aka kb: {gone} no longer exists; not re-ingested", err=True)
        if present:
            reports[layer] = ingest(kb, present, layer, progress=sys.stderr.isatty()).to_dict()
    if paths:
        reports["added paths"] = ingest(kb, paths, progress=sys.stderr.isatty()).to_dict()
    if not reports:
        typer.echo("aka kb: index emptied; nothing recorded to re-ingest (run `aka kb ingest PATH...`)", err=True)
    if as_json:
        print_json({"kb_dir": str(kb.path), "ingested": reports})
    else:
        typer.echo(f"rebuilt {kb.path}: {kb.count()} chunks")


def register(app: typer.Typer) -> None:
    """Add the `kb` sub-app to the aka command line."""
    kb = typer.Typer(help="Knowledge base: ingest, search, stats, eval, rebuild.", no_args_is_help=True)
    kb.command("ingest")(ingest_cmd)
    kb.command("search")(search_cmd)
    kb.command("stats")(stats_cmd)
    kb.command("eval")(eval_cmd)
    kb.command("rebuild")(rebuild_cmd)
    app.add_typer(kb, name="kb")
