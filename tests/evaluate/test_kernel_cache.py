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
    warming process's folder, deleted since). Copied as it is, Triton's own lookup finds none of
    them and compiles again; seeding points them at the copy."""
    from triton.runtime.cache import FileCacheManager

    warm = tmp_path / "warm" / "KEY"
    warm.mkdir(parents=True)
    names = ["_k.cubin", "_k.ptx", "_k.llir", "_k.json"]
    for n in names:
        (warm / n).write_text(n)
    (warm / "__grp___k.json").write_text(json.dumps({"child_paths": {n: str(warm / n) for n in names}}))
    (warm / "__triton_launcher.cpython-312-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    root = tmp_path / "root"
    shutil.copytree(warm.parent, root / kernel_cache.SHIPPED)
    shutil.rmtree(warm.parent)
    monkeypatch.setenv("AKA_JOBS_ROOT", str(root))
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    work = tmp_path / "work"
    kernel_cache.seed(str(work), shipped=True)
    own = Path(kernel_cache.own_folder(str(work)))
    monkeypatch.setenv("TRITON_CACHE_DIR", str(own))
    group = FileCacheManager("KEY").get_group("_k.json")
    runtime = ["_k.cubin", "_k.json"]                                     # the intermediate code is not copied
    assert group == {n: str(own / "KEY" / n) for n in runtime}           # Triton's hit: its binary and metadata
    assert sorted(p.name for p in (own / "KEY").iterdir()) == sorted(
        ["__grp___k.json", "__triton_launcher.cpython-312-x86_64-linux-gnu.so", *runtime])
    assert kernel_cache.relocate(str(own)) == 0                           # already in place
    shipped_group = json.loads((root / kernel_cache.SHIPPED / "KEY" / "__grp___k.json").read_text())
    assert shipped_group["child_paths"]["_k.cubin"] == str(warm / "_k.cubin")   # the shared copy is untouched


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
