"""The shipped-kernel cache: code aka ships starts from what earlier shipped candidates compiled
and adds what it compiled; any other candidate never reads it, and what it compiles (or plants)
never reaches it."""

import json
import os
import shutil
import time
from pathlib import Path
from dataclasses import replace

from aka.evaluate import kernel_cache
from aka.evaluate.evaluator import EvalOptions

from .conftest import CANDIDATES

PLANTER = (CANDIDATES / "honest_rmsnorm.py").read_text() + '''

import os as _os
_entry = _os.path.join(_os.environ["TRITON_CACHE_DIR"], "planted-key")
_os.makedirs(_entry, exist_ok=True)
open(_os.path.join(_entry, "__grp__planted.json"), "w").write("{}")
open(_os.path.join(_entry, "_rmsnorm_kernel.cubin"), "w").write("not a kernel")
'''


def _entry(folder, name, complete=True):
    path = folder / name
    path.mkdir(parents=True)
    (path / "k.cubin").write_bytes(b"\0" * 16)
    if complete:
        (path / f"__grp__{name}.json").write_text("{}")
    return path


def test_seed_copies_the_shipped_cache_only_for_shipped_code(tmp_path, monkeypatch):
    judges, root = tmp_path / "judges", tmp_path / "root"
    _entry(judges, "timer")
    _entry(root / kernel_cache.SHIPPED, "tuned")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(judges))
    monkeypatch.setenv("AKA_JOBS_ROOT", str(root))
    for shipped, want in ((False, ["timer"]), (True, ["timer", "tuned"])):
        work = tmp_path / f"work-{shipped}"
        kernel_cache.seed(str(work), shipped)
        assert sorted(os.listdir(kernel_cache.own_folder(str(work)))) == want


def test_publish_adds_complete_new_entries_whole(tmp_path, monkeypatch):
    root, work = tmp_path / "root", tmp_path / "work"
    monkeypatch.setenv("AKA_JOBS_ROOT", str(root))
    own = tmp_path / "work" / ".triton" / "cache"
    _entry(own, "done")
    _entry(own, "half", complete=False)
    (own / "link").symlink_to(own / "done")
    existing = _entry(root / kernel_cache.SHIPPED, "kept")
    _entry(own, "kept")
    (own / "kept" / "k.cubin").write_bytes(b"other")
    assert kernel_cache.publish(str(work)) == 1
    shipped = root / kernel_cache.SHIPPED
    assert sorted(os.listdir(shipped)) == ["done", "kept"]
    assert (existing / "k.cubin").read_bytes() == b"\0" * 16          # never overwritten
    assert kernel_cache.publish(str(work)) == 0


def test_host_launchers_are_published_once_written_whole(tmp_path, monkeypatch):
    """Triton 3.6 builds a C launcher per kernel signature (and its driver utilities) with the C
    compiler, cached as a lone module without a group file; an interrupted write leaves a tmp folder;
    Triton writes no links, so an entry holding one is not shared."""
    root, work = tmp_path / "root", tmp_path / "work"
    monkeypatch.setenv("AKA_JOBS_ROOT", str(root))
    own = work / ".triton" / "cache"
    for name, files in {"launcher": ["__triton_launcher.cpython-312-x86_64-linux-gnu.so"],
                        "utils": ["cuda_utils.cpython-312-x86_64-linux-gnu.so"],
                        "cut": ["tmp.pid_7_1234/__triton_launcher.cpython-312-x86_64-linux-gnu.so"],
                        "empty": [], "stray": ["__triton_launcher.c"]}.items():
        (own / name).mkdir(parents=True)
        for f in files:
            (own / name / f).parent.mkdir(parents=True, exist_ok=True)
            (own / name / f).write_bytes(b"\x7fELF")
    (own / "linked").mkdir()                                   # a link posing as a module, or as a kernel's binary
    (own / "linked" / "__triton_launcher.cpython-312-x86_64-linux-gnu.so").symlink_to("/etc/passwd")
    _entry(own, "linked-kernel")
    (own / "linked-kernel" / "k.cubin").unlink()
    (own / "linked-kernel" / "k.cubin").symlink_to("/etc/passwd")
    assert kernel_cache.publish(str(work)) == 2
    assert sorted(os.listdir(root / kernel_cache.SHIPPED)) == ["launcher", "utils"]


def test_only_a_shipped_candidates_compiles_are_published(evaluator, fixture_op, tmp_path):
    """In the interpreter nothing compiles, so the candidate plants an entry in its own cache: from
    a user's candidate it goes nowhere; from shipped code it is published (which is why only aka's
    own code is ever marked shipped)."""
    path = tmp_path / "planter.py"
    path.write_text(PLANTER)
    options = replace(EvalOptions(time=False, timeout_s=60), review=False)
    result = evaluator.evaluate(fixture_op, path, options)
    assert result.accepted, [str(r) for r in result.rejections]
    shipped = evaluator.pool.jobs_root / kernel_cache.SHIPPED
    assert not (shipped / "planted-key").exists()
    result = evaluator.evaluate(fixture_op, path, options, shipped=True)
    try:
        assert result.accepted and (shipped / "planted-key" / "__grp__planted.json").is_file()
    finally:
        shutil.rmtree(shipped / "planted-key", ignore_errors=True)    # the pool is shared by other tests


LINK_WRITER = (CANDIDATES / "honest_rmsnorm.py").read_text() + '''

import os as _os
_so = _os.path.join(_os.environ["TRITON_CACHE_DIR"], "LINKED", "__triton_launcher.so")
try:
    with open(_so, "wb") as _f:                # through the link, were it kept writable
        _f.write(b"forged")
except OSError:
    pass
'''


def test_a_shipped_candidate_cannot_write_through_its_linked_cache_entries(evaluator, fixture_op, tmp_path):
    """Shipped code gets the shipped cache's entries as links; whatever its process writes to them
    lands in its own copy (no lock-down) or nowhere (read-only), never in the shared cache."""
    shipped = evaluator.pool.root() / kernel_cache.SHIPPED
    entry = shipped / "LINKED"
    entry.mkdir(parents=True, exist_ok=True)
    (entry / "__triton_launcher.so").write_bytes(b"\x7fELF")
    path = tmp_path / "writer.py"
    path.write_text(LINK_WRITER)
    try:
        result = evaluator.evaluate(fixture_op, path, replace(EvalOptions(time=False, timeout_s=60), review=False),
                                    shipped=True)
        assert result.accepted, [str(r) for r in result.rejections]
        assert (entry / "__triton_launcher.so").read_bytes() == b"\x7fELF"
    finally:
        shutil.rmtree(entry, ignore_errors=True)                    # the pool is shared by other tests


def test_the_judge_counts_what_a_candidates_process_compiled_itself(tmp_path, monkeypatch):
    from aka.evaluate.remote import Remote

    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "judges"))
    _entry(tmp_path / "judges", "timer")
    work = tmp_path / "work"
    seeded = kernel_cache.seed(str(work), shipped=False)
    assert seeded == {"timer"}
    remote = Remote(pid=0, chan=None, workdir=str(work), deadline=0.0, seeded=seeded, seeded_at=time.time())
    assert remote.compiled() == 0
    time.sleep(0.01)
    _entry(work / ".triton" / "cache", "mine")
    assert remote.compiled() == 1
    (work / ".triton" / "cache" / "timer" / "k.cubin").write_bytes(b"compiled again")   # a seeded entry it could not use
    assert remote.compiled() == 2


def test_a_seeded_entry_is_a_cache_hit_for_triton_wherever_it_was_compiled(tmp_path, monkeypatch):
    """Triton's group file names its files by absolute path in the cache that compiled them (here a
    warming process's folder, deleted since). Published as it is, Triton's own lookup through a
    candidate's link would find none of them and compile again; publishing points them at the
    shipped copy, so the link is a hit."""
    from triton.runtime.cache import FileCacheManager

    warm = tmp_path / "warm" / "KEY"
    warm.mkdir(parents=True)
    names = ["_k.cubin", "_k.ptx", "_k.llir", "_k.json"]
    for n in names:
        (warm / n).write_text(n)
    (warm / "__grp___k.json").write_text(json.dumps({"child_paths": {n: str(warm / n) for n in names}}))
    root = tmp_path / "root"
    shipped = root / kernel_cache.SHIPPED
    assert kernel_cache.publish_folder(str(warm.parent), str(shipped)) == 1
    shutil.rmtree(warm.parent)
    monkeypatch.setenv("AKA_JOBS_ROOT", str(root))
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    work = tmp_path / "work"
    kernel_cache.seed(str(work), shipped=True)
    own = Path(kernel_cache.own_folder(str(work)))
    assert (own / "KEY").is_symlink() and os.path.realpath(own / "KEY") == str(shipped / "KEY")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(own))
    group = FileCacheManager("KEY").get_group("_k.json")
    assert group == {n: str(shipped / "KEY" / n) for n in names}          # Triton's hit, read where it lies
    assert all(Path(p).is_file() for p in group.values())
    assert kernel_cache.relocate(str(own)) == 0                           # a link is never rewritten


def test_a_linked_entry_the_candidate_could_write_through_becomes_a_copy(tmp_path, monkeypatch):
    """Without a read-only filesystem (no mount namespace), a link would let the candidate's process
    write into the shared cache: `secure_links`, run there before candidate code, copies such an
    entry (its group file pointing at the copy); a read-only one stays linked, an unreadable one goes.
    (os.access stands in for the mount and the other user: this machine runs tests as root.)"""
    shipped = tmp_path / "root" / kernel_cache.SHIPPED
    for key in ("OPEN", "SHUT", "GONE"):
        e = shipped / key
        e.mkdir(parents=True)
        (e / "_k.cubin").write_bytes(b"\0" * 8)
        (e / "_k.ptx").write_text("intermediate")
        (e / "__grp___k.json").write_text(json.dumps({"child_paths": {"_k.cubin": str(e / "_k.cubin")}}))
    monkeypatch.setenv("AKA_JOBS_ROOT", str(tmp_path / "root"))
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    work = tmp_path / "work"
    assert sorted(kernel_cache.seed(str(work), shipped=True)) == ["GONE", "OPEN", "SHUT"]
    own = Path(kernel_cache.own_folder(str(work)))
    shut, gone = str(shipped / "SHUT"), str(shipped / "GONE")
    real = os.access

    def access(path, mode):                 # as the lock-down's read-only mount and another user's folder
        if str(path) == gone:
            return False
        if str(path) == shut and mode & os.W_OK:
            return False
        return real(path, mode)
    monkeypatch.setattr(kernel_cache.os, "access", access)
    assert kernel_cache.secure_links(str(own)) == (1, 1)
    monkeypatch.setattr(kernel_cache.os, "access", real)
    assert not (own / "OPEN").is_symlink() and (own / "OPEN" / "_k.cubin").read_bytes() == b"\0" * 8
    assert not (own / "OPEN" / "_k.ptx").exists()                          # runtime files only
    group = json.loads((own / "OPEN" / "__grp___k.json").read_text())["child_paths"]
    assert group == {"_k.cubin": str(own / "OPEN" / "_k.cubin")}
    assert (own / "SHUT").is_symlink() and not os.path.lexists(own / "GONE")
    (own / "OPEN" / "_k.cubin").write_bytes(b"planted")                    # writing its copy ...
    assert (shipped / "OPEN" / "_k.cubin").read_bytes() == b"\0" * 8      # ... leaves the shared cache alone


def test_a_shipped_candidate_is_seeded_with_its_own_kernels_and_every_launcher_only(tmp_path, monkeypatch):
    """The shipped cache holds every configuration a session compiled ahead; a candidate's folder
    gets the entries of the kernels its source defines, the host launchers (no kernel named), and
    all of the judges' cache as before."""
    judges, shipped = tmp_path / "judges", tmp_path / "root" / kernel_cache.SHIPPED
    _entry(judges, "timer")
    for key, kernel in (("K1", "_rmsnorm_rows"), ("K2", "_softmax_rows"), ("K3", "_rmsnorm_rows")):
        e = _entry(shipped, key)
        (e / f"{kernel}.json").write_text("{}")
    launcher = shipped / "L1"
    launcher.mkdir()
    (launcher / "__triton_launcher.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    monkeypatch.setenv("TRITON_CACHE_DIR", str(judges))
    monkeypatch.setenv("AKA_JOBS_ROOT", str(tmp_path / "root"))
    source = (Path(__file__).parents[2] / "reference_kernels" / "rmsnorm" / "latency_rows.py").read_text()
    assert "_rmsnorm_rows" in kernel_cache.defined_names(source)
    work = tmp_path / "work"
    assert sorted(kernel_cache.seed(str(work), True, source)) == ["K1", "K3", "L1", "timer"]
    whole = tmp_path / "whole"                                     # no source given: everything, as before
    assert sorted(kernel_cache.seed(str(whole), True)) == ["K1", "K2", "K3", "L1", "timer"]
