"""Chroma store specifics: persistence, manifest, incompatible indexes, rebuild safety, lock."""

from __future__ import annotations

import json

import pytest

from aka.errors import KnowledgeError
from aka.knowledge import ChromaKnowledgeBase, HashEmbedder, MiniLMEmbedder, ingest
from aka.knowledge.chroma import LOCK, MANIFEST, MANIFEST_TMP, wipe
from aka.knowledge.paths import default_kb_dir


def test_reading_creates_nothing(tmp_path):
    kb = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    assert kb.search("anything") == [] and kb.count() == 0
    assert not (tmp_path / "kb").exists()


def test_persists_and_remembers_its_embedder(tmp_path, docs_tree):
    kb = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    again = ChromaKnowledgeBase(tmp_path / "kb")
    assert again.embedder.name == "hash-bow" and again.count() == kb.count()
    assert again.roots == {"docs": [str(docs_tree / "knowledge")]}
    assert (tmp_path / "kb" / LOCK).exists()
    with pytest.raises(KnowledgeError, match="rebuild"):
        ChromaKnowledgeBase(tmp_path / "kb", MiniLMEmbedder())


@pytest.mark.parametrize("manifest", ['{"format": 0, "embedder": "hash-bow"}', "not json", None])
def test_incompatible_index_says_rebuild(tmp_path, manifest):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / "chroma.sqlite3").write_bytes(b"old")
    if manifest is not None:
        (folder / MANIFEST).write_text(manifest)
    with pytest.raises(KnowledgeError, match="aka kb rebuild"):
        ChromaKnowledgeBase(folder, HashEmbedder())
    wipe(folder)
    assert ChromaKnowledgeBase(folder, HashEmbedder()).count() == 0


def test_a_folder_another_process_is_creating_is_not_foreign(tmp_path):
    folder = tmp_path / "kb"
    folder.mkdir()
    (folder / LOCK).write_text("")
    (folder / MANIFEST_TMP).write_text('{"format": 1')  # its manifest, half written
    assert ChromaKnowledgeBase(folder, HashEmbedder()).count() == 0
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(KnowledgeError, match="notes.txt"):
        ChromaKnowledgeBase(folder, HashEmbedder())


def test_stores_opened_before_the_folder_existed_share_it(tmp_path, docs_tree):
    first, second = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder()), ChromaKnowledgeBase(tmp_path / "kb")
    (docs_tree / "more").mkdir()
    (docs_tree / "more" / "extra.md").write_text("# Extra\nfiller text\n")
    ingest(first, [docs_tree / "knowledge"], root=docs_tree)
    ingest(second, [docs_tree / "more"], layer="docs", root=docs_tree)
    assert second.embedder.name == "hash-bow"  # taken from the index `first` created
    assert ChromaKnowledgeBase(tmp_path / "kb").roots == {"docs": [str(docs_tree / "knowledge"),
                                                                   str(docs_tree / "more")]}


def test_wipe_refuses_a_folder_that_is_not_an_index(tmp_path):
    (tmp_path / "project.py").write_text("x = 1\n")
    with pytest.raises(KnowledgeError, match="refusing"):
        wipe(tmp_path)
    assert (tmp_path / "project.py").exists()


def test_wipe_returns_roots_and_empties(tmp_path, docs_tree):
    kb = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    roots = wipe(tmp_path / "kb")
    assert roots == {"docs": [str(docs_tree / "knowledge")]}
    assert {p.name for p in (tmp_path / "kb").iterdir()} == {LOCK}


def test_kb_dir_resolution(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    monkeypatch.delenv("AKA_KB_DIR", raising=False)
    assert default_kb_dir() == tmp_path / ".aka" / "kb"
    monkeypatch.setenv("AKA_KB_DIR", str(tmp_path / "env"))
    assert default_kb_dir() == tmp_path / "env"
    assert default_kb_dir(tmp_path / "arg") == tmp_path / "arg"


def test_write_lock_is_exclusive(tmp_path):
    from filelock import FileLock, Timeout

    kb = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    with kb.write_lock():
        with pytest.raises(Timeout):
            FileLock(str(tmp_path / "kb" / LOCK), timeout=0.05).acquire()


def test_generation_moves_on_writes(tmp_path, docs_tree):
    kb = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    gen = json.loads((tmp_path / "kb" / MANIFEST).read_text())["generation"]
    other = ChromaKnowledgeBase(tmp_path / "kb")
    other.remove("docs", ["knowledge/amd.md"])
    assert kb.generation() > gen and "knowledge/amd.md" not in kb.indexed("docs")


def test_chroma_default_embedding_function_is_never_used(tmp_path, docs_tree, monkeypatch):
    from chromadb.utils.embedding_functions import onnx_mini_lm_l6_v2 as onnx

    def refuse(*args, **kwargs):
        raise AssertionError("Chroma's default embedding function was touched")

    monkeypatch.setattr(onnx.ONNXMiniLM_L6_V2, "__call__", refuse)
    monkeypatch.setattr(onnx.ONNXMiniLM_L6_V2, "__init__", refuse)
    kb = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    ingest(kb, [docs_tree / "knowledge"], root=docs_tree)
    assert kb.search("online softmax", k=1)[0].chunk.source == "knowledge/softmax.md"


CHILD = """
import sys
from aka.knowledge import ChromaKnowledgeBase, HashEmbedder, ingest
kb = ChromaKnowledgeBase(sys.argv[1], HashEmbedder())
for _ in range(3):
    ingest(kb, [sys.argv[2]], root=sys.argv[3])
"""


def test_concurrent_ingest_while_searching(tmp_path, docs_tree):
    import subprocess
    import sys

    for i in range(30):
        (docs_tree / "knowledge" / f"extra{i}.md").write_text(f"# Extra {i}\nfiller text number {i}\n")
    args = [sys.executable, "-c", CHILD, str(tmp_path / "kb"), str(docs_tree / "knowledge"), str(docs_tree)]
    children = [subprocess.Popen(args, stderr=subprocess.PIPE) for _ in range(2)]
    reader = ChromaKnowledgeBase(tmp_path / "kb", HashEmbedder())
    while any(c.poll() is None for c in children):
        reader.search("filler text", k=3)
    assert [c.wait() for c in children] == [0, 0], [c.stderr.read() for c in children]
    final = ChromaKnowledgeBase(tmp_path / "kb")
    assert len(final.indexed("docs")) == 34 and final.count("docs") == len(final.chunks("docs"))
    assert len({c.id for c in final.chunks("docs")}) == final.count("docs")
