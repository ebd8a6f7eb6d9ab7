"""Ingestion: chunking, metadata, incremental updates and bad input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aka.errors import InputError
from aka.knowledge import InMemoryKnowledgeBase, Scope, ingest
from aka.knowledge.chunking import MAX_CHARS, chunk_markdown, chunk_python
from aka.knowledge.ingest import default_layer

from .conftest import REPO, write


@pytest.fixture
def kb():
    return InMemoryKnowledgeBase()


def test_markdown_chunks_keep_heading_path():
    body = "# T\nintro\n## A\none\n```\n# not a heading\n```\n### B\ntwo\n## C\nthree\n"
    pieces = chunk_markdown(body, "T", first_line=5)
    assert [(p.heading, p.line) for p in pieces] == [(("T",), 6), (("T", "A"), 8), (("T", "A", "B"), 13), (("T", "C"), 15)]
    assert "# not a heading" in pieces[1].body


def test_long_sections_split_with_their_heading():
    para = "word " * 200
    pieces = chunk_markdown(f"## Big\n{para}\n\n{para}\n\n{para}\n", "Doc")
    assert len(pieces) >= 2 and all(p.heading == ("Doc", "Big") and len(p.body) <= MAX_CHARS for p in pieces)


def test_python_chunks_by_function_with_decorators_and_docstrings():
    src = '"""Module doc."""\nimport x\n\n@triton.jit\ndef kern(a):\n    """Adds."""\n    return a\n\nclass ModelNew:\n    def forward(self):\n        return 1\n'
    pieces = chunk_python(src)
    assert [p.heading for p in pieces] == [("<module>",), ("kern",), ("ModelNew",)]
    assert pieces[1].body.startswith("@triton.jit") and '"""Adds."""' in pieces[1].body and pieces[1].line == 4


def test_big_class_is_split_into_methods():
    methods = "".join(f"    def m{i}(self):\n        return {'1 + ' * 60}1\n" for i in range(12))
    pieces = chunk_python(f"class Big:\n    '''Doc.'''\n{methods}")
    assert pieces[0].heading == ("Big",) and ("Big", "m11") in [p.heading for p in pieces]


def test_front_matter_metadata_reaches_chunks(kb, docs_tree):
    ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    hopper = [c for c in kb.chunks("docs") if c.source == "knowledge/hopper.md"]
    assert hopper and all(c.vendors == ("nvidia",) and c.archs == ("sm90",) and c.ops == ("gemm",) for c in hopper)
    assert hopper[-1].heading == ("Hopper TMA tricks", "Bulk copies")


def test_reference_kernels_use_read_kernel_meta(kb):
    kernels = sorted((REPO / "reference_kernels").rglob("*.py"))
    kernels = [k for k in kernels if k.name != "__init__.py"]
    if not kernels:
        pytest.skip("no reference kernels in this checkout")
    report = ingest(kb, [REPO / "reference_kernels"], root=REPO)
    assert not [s for s in report.skipped if s.path.endswith(".py")], report.skipped
    chunks = kb.chunks("reference")
    assert chunks and all(c.ops and c.dsl and c.strategy for c in chunks)
    assert any(c.params for c in chunks) and any(c.heading == ("ModelNew",) for c in chunks)


def test_layer_defaults(tmp_path):
    assert default_layer(tmp_path / "reference_kernels" / "rmsnorm" / "k.py") == "reference"
    assert default_layer(tmp_path / "knowledge" / "a.md") == "docs"


def test_incremental_unchanged_changed_deleted(kb, docs_tree):
    folder = docs_tree / "knowledge"
    first = ingest(kb, [folder], root=docs_tree)
    before = kb.count()
    assert len(first.added) == 4 and first.chunks_added == before
    assert not ingest(kb, [folder], root=docs_tree).changed and kb.count() == before
    write(docs_tree, "knowledge/softmax.md", "---\ntitle: Online softmax\n---\n# Online softmax\nrewritten text\n")
    (folder / "amd.md").unlink()
    third = ingest(kb, [folder], root=docs_tree)
    assert third.updated == ["knowledge/softmax.md"] and third.removed == ["knowledge/amd.md"]
    texts = [c.text for c in kb.chunks("docs") if c.source == "knowledge/softmax.md"]
    assert len(texts) == 1 and "rewritten" in texts[0]
    assert "knowledge/amd.md" not in kb.indexed("docs")


def test_ingesting_a_subfolder_deletes_nothing_outside_it(kb, docs_tree):
    write(docs_tree, "knowledge/sub/x.md", "# X\nbody\n")
    ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    report = ingest(kb, [docs_tree / "knowledge" / "sub"], root=docs_tree)
    assert not report.removed and len(kb.indexed("docs")) == 5


def test_broken_front_matter_is_reported_with_line_and_skipped(kb, docs_tree):
    write(docs_tree, "knowledge/bad.md", "---\ntitle: Bad\nops: [a, b\n---\n# Bad\n")
    write(docs_tree, "knowledge/typo.md", "---\ntitle: Typo\nvendor: [amd]\n---\n# Typo\n")
    write(docs_tree, "knowledge/vendor.md", "---\ntitle: V\nvendors: [nvida]\n---\n# V\n")
    report = ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    skipped = {s.path: s for s in report.skipped}
    assert set(skipped) == {"knowledge/bad.md", "knowledge/typo.md", "knowledge/vendor.md"}
    assert skipped["knowledge/bad.md"].line in (3, 4) and "YAML" in skipped["knowledge/bad.md"].reason
    assert skipped["knowledge/typo.md"].line == 3 and "'vendor'" in skipped["knowledge/typo.md"].reason
    assert "nvida" in str(skipped["knowledge/vendor.md"])
    assert len(report.added) == 4


def test_upstream_front_matter_is_lenient(kb, tmp_path):
    write(tmp_path, "up/page.md", "---\nlayout: post\npermalink: /x\ntitle: Page\n---\n# Page\ntext\n")
    report = ingest(kb, [tmp_path / "up"], "upstream", root=tmp_path)
    assert report.added == ["up/page.md"] and kb.chunks("upstream")[0].title == "Page"


def test_binary_huge_unsupported_and_unreadable_files(kb, tmp_path):
    write(tmp_path, "d/ok.md", "# Ok\nfine\n")
    (tmp_path / "d" / "bin.txt").write_bytes(b"abc\x00\x01\x02")
    (tmp_path / "d" / "latin.txt").write_bytes("caf\xe9".encode("latin-1"))
    write(tmp_path, "d/huge.md", "# H\n" + "x" * 5000)
    locked = write(tmp_path, "d/locked.md", "# L\n")
    locked.chmod(0)
    (tmp_path / "d" / "image.png").write_bytes(b"\x89PNG")
    try:
        report = ingest(kb, [tmp_path / "d", tmp_path / "d" / "image.png"], root=tmp_path, max_bytes=4096)
    finally:
        locked.chmod(0o644)
    reasons = {Path(s.path).name: s.reason for s in report.skipped}
    assert "binary" in reasons["bin.txt"] and "UTF-8" in reasons["latin.txt"]
    assert "cap" in reasons["huge.md"] and "unsupported" in reasons["image.png"]
    if os.geteuid() != 0:
        assert "unreadable" in reasons["locked.md"]
    assert "d/ok.md" in report.added


def test_symlink_loops_and_broken_links(kb, tmp_path):
    write(tmp_path, "d/a.md", "# A\nbody\n")
    (tmp_path / "d" / "loop").symlink_to(tmp_path / "d")
    (tmp_path / "d" / "dangling.md").symlink_to(tmp_path / "nowhere.md")
    report = ingest(kb, [tmp_path / "d"], root=tmp_path)
    assert report.added == ["d/a.md"]
    text = " ".join(str(s) for s in report.skipped)
    assert "loop" in text and "broken symlink" in text


def test_duplicates_are_indexed_once(kb, tmp_path):
    write(tmp_path, "d/a.md", "# Same\nbody\n")
    write(tmp_path, "d/b.md", "# Same\nbody\n")
    report = ingest(kb, [tmp_path / "d", tmp_path / "d" / "a.md"], root=tmp_path)
    assert report.added == ["d/a.md"]
    assert [s.reason for s in report.skipped] == ["duplicate of d/a.md (same content); indexed once"]


def test_missing_path_and_bad_layer_are_input_errors(kb, tmp_path):
    with pytest.raises(InputError, match="no such file"):
        ingest(kb, [tmp_path / "nope"])
    with pytest.raises(InputError, match="--layer"):
        ingest(kb, [tmp_path], "bogus")


def test_explicit_layer_and_search_scope(kb, docs_tree):
    ingest(kb, [docs_tree / "knowledge" / "general.md"], "upstream", root=docs_tree)
    assert kb.indexed("upstream") and not kb.indexed("docs")
    assert kb.search("coalesced", Scope(layers=("docs",))) == []


def test_html_pages_chunk_by_heading_and_keep_code(kb, tmp_path):
    write(tmp_path, "up/softmax.html", """
        <html><head><title>Fused softmax</title><style>p {color: red}</style></head>
        <body><nav>Home | Docs</nav>
        <h1>Fused softmax</h1><p>Each program normalizes one row.</p>
        <h2>The kernel</h2><pre>@triton.jit
        def softmax_kernel(x_ptr):
            row = tl.program_id(0)</pre>
        <p>Subtract the row max with <code>tl.max</code> before exponentiating.</p>
        </body></html>
    """)
    report = ingest(kb, [tmp_path / "up"], "upstream", root=tmp_path)
    assert report.added == ["up/softmax.html"]
    chunks = kb.chunks("upstream")
    assert {c.title for c in chunks} == {"Fused softmax"}
    kernel = next(c for c in chunks if c.heading and c.heading[-1] == "The kernel")
    assert "    row = tl.program_id(0)" in kernel.text and "tl.max before" in kernel.text
    assert not any("Home | Docs" in c.text or "color: red" in c.text for c in chunks)
