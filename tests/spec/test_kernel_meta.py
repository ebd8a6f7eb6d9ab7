"""Kernel-file front matter: parsed into KernelMeta; broken headers name file, line and field."""

import pytest

from aka.errors import SpecError
from aka.spec.kernel import read_kernel_meta

GOOD = '''"""
---
op: rmsnorm
strategy: one-row-per-program
techniques: [vectorized-load, fp32-accumulate]
dsl: triton
vendors: [nvidia, amd]
archs: [sm90, gfx942]
params:
  BLOCK_N: {values: [1024, 4096], default: 4096}
requires: []
sources: []
---
One row per program.
"""
import torch
'''


def test_front_matter_parses(tmp_path):
    p = tmp_path / "k.py"
    p.write_text(GOOD)
    meta = read_kernel_meta(p)
    assert (meta.op, meta.strategy, meta.dsl) == ("rmsnorm", "one-row-per-program", "triton")
    assert meta.defaults() == {"BLOCK_N": 4096} and meta.params["BLOCK_N"].values == (1024, 4096)
    assert meta.summary == "One row per program."


@pytest.mark.parametrize("old, new, match", [
    ("op: rmsnorm\n", "", "op"),
    ("default: 4096", "default: 7", "default 7"),
    ("requires: []", "requires: [gpu]", "requires_reason"),
    ("requires: []", "requires: [tpu]", "unknown requirement"),
    ("sources: []", "sources: []\ncolour: red", "colour"),
    ("---\nOne row", "One row", "not closed"),
])
def test_broken_front_matter(tmp_path, old, new, match):
    p = tmp_path / "k.py"
    p.write_text(GOOD.replace(old, new))
    with pytest.raises(SpecError, match=match) as err:
        read_kernel_meta(p)
    assert str(p) in str(err.value) and err.value.line


POINTS = "requires: []\npoints:\n  - {BLOCK_N: 1024, shapes: [decode-1]}\n  - {BLOCK_N: 4096}\n"


def test_declared_points_parse_and_fill_defaults_per_shape(tmp_path):
    p = tmp_path / "k.py"
    p.write_text(GOOD.replace("params:\n  BLOCK_N: {values: [1024, 4096], default: 4096}",
                              "params:\n  BLOCK_N: {values: [1024, 4096], default: 4096}\n"
                              "  WARPS: {values: [4, 8], default: 4}").replace("requires: []\n", POINTS))
    meta = read_kernel_meta(p)
    assert meta.points_for("decode-1") == [{"BLOCK_N": 1024, "WARPS": 4}, {"BLOCK_N": 4096, "WARPS": 4}]
    assert meta.points_for("prefill") == [{"BLOCK_N": 4096, "WARPS": 4}]
    assert meta.points_for() == meta.points_for("decode-1")                      # None: every point


@pytest.mark.parametrize("points, match", [
    ("  - {BLOCKN: 1024}\n", r"points\[0\]\.BLOCKN.*not a declared parameter"),
    ("  - {BLOCK_N: 512}\n", r"points\[0\]\.BLOCK_N.*512 is not among values"),
    ("  - {BLOCK_N: 1024}\n  - 7\n", r"points\[1\].*expected a mapping"),
    ("  - {BLOCK_N: 1024, shapes: 3}\n", r"points\[0\]\.shapes"),
    ("  - {shapes: [a]}\n", r"points\[0\].*names no parameter"),
])
def test_a_bad_point_names_the_entry_and_the_parameter(tmp_path, points, match):
    p = tmp_path / "k.py"
    p.write_text(GOOD.replace("requires: []\n", "requires: []\npoints:\n" + points))
    with pytest.raises(SpecError, match=match) as err:
        read_kernel_meta(p)
    assert str(p) in str(err.value)


def test_no_docstring(tmp_path):
    p = tmp_path / "k.py"
    p.write_text("import torch\n")
    with pytest.raises(SpecError, match="front matter"):
        read_kernel_meta(p)
