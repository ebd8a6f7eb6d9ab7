"""histogram/shared_atomics_ptx: its counts beyond the suite's cpu shapes (many programs, ids out of
range, each sub-histogram count), and its sm_90 build: the shared buffer Triton reserves holds the
private histograms, and the counting loop touches shared memory only through the kernel's own
`red.shared`. The PTX path runs on an NVIDIA GPU only; the interpreter here runs the tl.histogram
path the kernel takes elsewhere, on the same grid."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
import torch

from aka.evaluate.loading import load_module
from tests.tools import run_offline_compile

ROOT = Path(__file__).resolve().parents[2]
KERNEL = ROOT / "reference_kernels" / "histogram" / "shared_atomics_ptx.py"
DEVICE = "cuda" if torch.cuda.is_available() and not os.environ.get("TRITON_INTERPRET") else "cpu"


@pytest.fixture
def kern():
    module = load_module(str(KERNEL), "hshared")
    module.SINGLE_MAX, module.SHARED_MIN_BINS, module.BLOCK = 0, 64, 256   # many programs at small sizes
    return module


@pytest.mark.parametrize("n, bins", [(1000, 257), (4099, 1024), (513, 64)])
@pytest.mark.parametrize("copies", [1, 2, 4])
def test_counts_exactly_with_every_copy_count(kern, n, bins, copies):
    g = torch.Generator().manual_seed(n + bins + copies)
    u = torch.rand(n, generator=g)
    ids = (u * u * bins).to(torch.int32).clamp_(max=bins - 1)   # skewed, as the operator's inputs
    kern.COPIES = copies
    for per_sm in (1, 2):
        kern.PROGRAMS_PER_SM = per_sm
        got = kern.ModelNew(bins)(ids.to(DEVICE))
        assert got.dtype == torch.int64 and torch.equal(got.cpu(), torch.bincount(ids.long(), minlength=bins))


def test_ids_outside_the_bins_are_dropped(kern):
    bins = 100
    ids = torch.tensor([-1, -33, 0, 5, 99, 100, 127, 128, 4096, 5, 5, -1024] * 40, dtype=torch.int32)
    got = kern.ModelNew(bins)(ids.to(DEVICE)).cpu()
    keep = ids[(ids >= 0) & (ids < bins)].long()
    assert torch.equal(got, torch.bincount(keep, minlength=bins))


def test_the_single_program_path_stores_its_counts(kern):
    kern.SINGLE_MAX = 8192
    ids = torch.arange(3000, dtype=torch.int32) % 700
    got = kern.ModelNew(700)(ids.to(DEVICE)).cpu()
    assert torch.equal(got, torch.bincount(ids.long(), minlength=700))


def _build(tmp_path: Path, copies: int) -> tuple[dict, str]:
    out, ptx_dir = tmp_path / f"rows{copies}.json", tmp_path / f"ptx{copies}"
    r = run_offline_compile(str(KERNEL), "--shapes", "buckets-16m-1024", "--param", f"COPIES={copies}", "--json", str(out),
                 "--ptx-dir", str(ptx_dir))
    assert r.returncode == 0, r.stdout + r.stderr
    (row,) = [row for row in json.loads(out.read_text()) if row["function"] == "_count"]
    return row, Path(row["ptx"]).read_text()


@pytest.mark.parametrize("copies", [1, 2, 4])
def test_the_sm90_build_reserves_the_private_histograms_and_counts_with_shared_atomics(ptxas, tmp_path, copies):
    row, ptx = _build(tmp_path, copies)
    assert row["ok"] and row["constexprs"]["SHARED"] is True and row["constexprs"]["COPIES"] == copies
    assert row["shared_bytes"] >= copies * 1024 * 4          # the launcher's check, made on the build here
    loop = load_module(str(ROOT / "tools" / "offline_compile.py"), "offline_compile_tool").loop_lines(ptx)
    assert sum("red.shared.add.u32" in line for line in loop) >= 1
    # nothing of Triton's own in the loop: no barrier, no other shared access that could clobber the counts
    assert not any(re.search(r"\bbar\.sync\b|\b(ld|st)\.shared\b|\batom\.shared\b", line) for line in loop), loop
    assert "ld.global.L1::evict_first.L2::cache_hint.v4.b32" in "\n".join(loop)   # 16-byte id loads
