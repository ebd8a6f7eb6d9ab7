"""tools/offline_compile.py: a kernel's launches recorded on meta tensors and compiled for sm_90
with the ptxas Triton ships, on this GPU-less machine."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tools import run_offline_compile

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "offline_compile.py"
GELU = ROOT / "reference_kernels" / "gelu_and_mul" / "flat_1d.py"


@pytest.fixture(scope="module")
def tool():
    """The tool as a module (registered in sys.modules, where its dataclasses look it up)."""
    from aka.evaluate.loading import load_module

    return load_module(str(TOOL), "offline_compile_tool")


def _kernel(tmp_path: Path, body: str, forward: str) -> Path:
    head = GELU.read_text().split('"""', 2)[1]           # gelu_and_mul's front matter, reused
    path = tmp_path / "probe_kernel.py"
    path.write_text(f'"""{head}"""\n\nimport torch\nimport triton\nimport triton.language as tl\n\n{body}\n\n'
                    f"class ModelNew(torch.nn.Module):\n    def forward(self, x):\n{forward}\n")
    return path


def test_compiles_each_distinct_launch_and_reports_registers(ptxas, tmp_path):
    out = tmp_path / "rows.json"
    r = run_offline_compile(str(GELU), "--shapes", "gemma2-9b-decode-32,gemma2-9b-prefill-8k,gemma2-9b-decode-1", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    rows = json.loads(out.read_text())
    assert [row["shape"] for row in rows] == ["gemma2-9b-decode-32"]  # one width (d=14336), one launch
    row = rows[0]
    assert row["ok"] and row["function"] == "_gelu_and_mul_flat"
    assert row["constexprs"]["d"] == 14336 and row["options"] == {"num_warps": 8}
    assert 0 < row["registers"] <= 255 and row["spill_store_bytes"] == 0
    assert row["programs_per_sm"] >= 1
    assert "| yes |" in r.stdout


@pytest.mark.parametrize("registers,warps,shared,want", [
    (123, 4, 256, 4),      # 128 registers a thread x 128 threads: 16K of the SM's 64K
    (62, 4, 128, 8),       # rounded up to 64: eight programs
    (32, 4, 0, 16),        # registers allow 16, and 16 x 4 warps is the SM's 64
    (72, 4, 196608, 1),    # 192 KB of shared memory (plus the 1 KB reserve) leaves room for one
    (255, 8, 0, 1),        # 256 x 256 threads: the whole register file
    (16, 1, 0, 32),        # one-warp programs stop at 32 resident programs
])
def test_programs_per_sm_follows_the_sm90_limits(registers, warps, shared, want, tool):
    assert tool.programs_per_sm(registers, warps, shared) == want


def test_a_parameter_point_changes_the_launch(ptxas, tmp_path):
    out = tmp_path / "rows.json"
    r = run_offline_compile(str(GELU), "--shapes", "gemma2-9b-decode-32", "--param", "NUM_WARPS=4", "--param", "BLOCK=1024",
             "--json", str(out))
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())[0]
    assert row["options"] == {"num_warps": 4} and row["constexprs"]["BLOCK"] == 1024


def test_a_string_parameter_is_passed_as_a_string(ptxas, tmp_path):
    """PRECISION=tf32x3 (a string constant) reaches the launch as the string, not a number error."""
    out = tmp_path / "rows.json"
    kernel = ROOT / "reference_kernels" / "matmul_int4_grouped" / "scale_group_partials.py"
    r = run_offline_compile(str(kernel), "--shapes", "cpu-small", "--param", "PRECISION=tf32x3", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert json.loads(out.read_text())[0]["constexprs"]["PRECISION"] == "tf32x3"


def test_the_build_carries_the_launch_specialization_and_writes_its_ptx(ptxas, tmp_path):
    """The aligned bf16 input gets Triton's divisible-by-16 hint, as a real launch would, so the
    loads vectorize to 16 bytes; with --ptx-dir each launch's PTX is kept beside its row."""
    out, ptx_dir = tmp_path / "rows.json", tmp_path / "ptx"
    r = run_offline_compile(str(GELU), "--shapes", "gemma2-9b-prefill-8k", "--json", str(out), "--ptx-dir", str(ptx_dir))
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())[0]
    ptx = Path(row["ptx"]).read_text()
    assert Path(row["ptx"]).parent == ptx_dir and ".target sm_90" in ptx
    assert "ld.global.v4.b32" in ptx


def test_an_argument_the_kernel_does_not_specialize_stays_a_runtime_value(ptxas, tmp_path):
    """A step of 1 is a compile-time constant for Triton's launcher unless the kernel names it in
    `do_not_specialize`; then the build keeps it an argument, as a real launch does."""
    body = ("@triton.jit(do_not_specialize=['step'])\ndef _copy(x_ptr, n, step, BLOCK: tl.constexpr):\n"
            "    i = tl.arange(0, BLOCK)\n    tl.store(x_ptr + i * step, tl.load(x_ptr + i * step, mask=i < n), mask=i < n)\n\n"
            "@triton.jit\ndef _copy1(x_ptr, n, step, BLOCK: tl.constexpr):\n"
            "    i = tl.arange(0, BLOCK)\n    tl.store(x_ptr + i * step, tl.load(x_ptr + i * step, mask=i < n), mask=i < n)")
    kernel = _kernel(tmp_path, body, "        _copy[(1,)](x, 64, 1, BLOCK=64)\n        _copy1[(1,)](x, 64, 1, BLOCK=64)\n"
                                     "        return x[..., : x.shape[-1] // 2]")
    out = tmp_path / "rows.json"
    r = run_offline_compile(str(kernel), "--shapes", "gemma2-9b-decode-1", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    rows = {row["function"]: row for row in json.loads(out.read_text())}
    assert rows["_copy"]["ok"] and "step" not in rows["_copy"]["constexprs"]
    assert rows["_copy1"]["constexprs"]["step"] == 1


@pytest.mark.parametrize("kernel,shape,param,what", [
    # the slab atomics' ids loaded four to a thread converted to the atomic's layout in every trip
    ("histogram/private_slab_atomics.py", "buckets-16m-1024", "SCALAR_IDS", "barriers"),
    # int4 codes fetched a byte at a time, against each row's packed bytes as one run
    ("matmul_int4_grouped/scale_group_partials.py", "llama3-8b-qproj-prefill-512x4096x4096-g128", "PACKED_ROWS",
     "subword_loads"),
])
def test_loop_figures_show_what_a_parameter_removed_from_the_loop(ptxas, tmp_path, kernel, shape, param, what):
    """Barriers and 1-2 byte loads inside the PTX's loops, per launch: the findings of session 40's
    survey, before (the parameter at 0) and after (at 1)."""
    counts = {}
    for value in (0, 1):
        out = tmp_path / f"rows{value}.json"
        r = run_offline_compile(str(ROOT / "reference_kernels" / kernel), "--shapes", shape, "--param", f"{param}={value}",
                 "--json", str(out))
        assert r.returncode == 0, r.stdout + r.stderr
        (row,) = [row for row in json.loads(out.read_text()) if row["constexprs"].get(param) == value]
        counts[value] = row["loops"]
    assert counts[0][what] > 0 and counts[1][what] == 0, counts


def test_loop_stats_counts_lines_inside_loops_once(tool):
    ptx = "\n".join(["\tbar.sync 0;", "$L__BB0_1:", "\tld.global.b8 {%rs1}, [%rd1];",
                     "\tld.global.v4.b32 {%r1, %r2, %r3, %r4}, [%rd2];", "$L__BB0_2:", "\tbar.sync 0;",
                     "\tst.shared.b32 [%r5], %r6;", "\t@%p1 bra $L__BB0_2;", "\t@%p2 bra $L__BB0_1;",
                     "\tld.shared.b32 %r7, [%r8];", "\t@%p3 bra $L__BB0_9;"])
    assert tool.loop_stats(ptx) == {"barriers": 1, "shared": 1, "subword_loads": 1}


def test_loop_stats_counts_matrix_moves_through_shared_memory(tool):
    """Session 45 read "no shared-memory access" off histogram's TILE_LOADS loop, which moves an
    operand through stmatrix and ldmatrix every trip (session 46): both are shared accesses."""
    ptx = "\n".join(["$L__BB0_3:", "\tbar.sync 0;",
                     "\tstmatrix.sync.aligned.m8n8.x4.shared.b16 [%r5], {%r486, %r487, %r488, %r489};",
                     "\tldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r6];",
                     "\tmma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%r7}, {%r8}, {%r9}, {%r10};",
                     "\t@%p1 bra $L__BB0_3;"])
    assert tool.loop_stats(ptx) == {"barriers": 1, "shared": 2, "subword_loads": 0}


def test_inputs_that_need_data_to_build_are_made_on_the_cpu_then_recorded_on_meta(ptxas, tmp_path):
    """decode_attention_paged's make_inputs reads its sequence lengths to build the block table,
    which meta tensors cannot; both of the kernel's launches are still recorded and built."""
    out = tmp_path / "rows.json"
    kernel = ROOT / "reference_kernels" / "decode_attention_paged" / "split_k_gqa.py"
    r = run_offline_compile(str(kernel), "--shapes", "phi2-mha-b5-ctx513", "--json", str(out))
    assert r.returncode == 0, r.stdout + r.stderr
    assert {row["function"] for row in json.loads(out.read_text()) if row["ok"]} == {"_decode_split", "_merge_splits"}


def test_a_launch_the_compiler_rejects_is_a_failed_row_and_exit_1(ptxas, tmp_path):
    bad = _kernel(tmp_path, "@triton.jit\ndef _bad(x_ptr, n):\n    i = tl.arange(0, 3)\n"
                            "    tl.store(x_ptr + i, tl.load(x_ptr + i, mask=i < n), mask=i < n)",
                  "        _bad[(1,)](x, x.numel())\n        return x[..., : x.shape[-1] // 2]")
    r = run_offline_compile(str(bad), "--shapes", "gemma2-9b-decode-1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "| **no**:" in r.stdout and "_bad" in r.stdout


def test_a_forward_that_reads_data_is_reported_not_recorded(ptxas, tmp_path):
    reads = _kernel(tmp_path, "", "        if x.abs().max().item() > 0:\n            pass\n        return x")
    r = run_offline_compile(str(reads), "--shapes", "gemma2-9b-decode-1")
    assert r.returncode == 0, r.stderr
    assert "(not recorded)" in r.stdout and "meta" in r.stdout


@pytest.mark.parametrize("args,needle", [
    (["--param", "BLOCK"], "NAME=VALUE"),
    (["--shapes", "no-such-shape"], "no-such-shape"),
    (["--param", "NO_SUCH_CONSTANT=4"], "NO_SUCH_CONSTANT"),
])
def test_bad_arguments_exit_2_naming_what_is_wrong(args, needle):
    r = run_offline_compile(str(GELU), *args)
    assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_a_missing_kernel_file_exits_2(tmp_path):
    r = run_offline_compile(str(tmp_path / "nope.py"))
    assert r.returncode == 2 and "nope.py" in r.stderr
