"""Offline sm_90 compile (Triton's compiler stages and bundled ptxas, no GPU): do looped and loop-free
reduction kernels differ in how they load? Counts cp.async, ld.global, ld.shared and bar.sync in the PTX.
  python3 comp_stage.py ROW_SUM_AT_455ba5b.py GLOBAL_SUM_AT_909a89c.py"""
import importlib.util, sys
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.backends.nvidia.compiler import CUDABackend
from triton._C.libtriton import ir
target = GPUTarget("cuda", 90, 32); backend = CUDABackend(target)
def build(path, kname, sig, consts, num_warps, num_stages):
    spec = importlib.util.spec_from_file_location("m", path); m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    full = dict(sig); full.update({k: "constexpr" for k in consts})
    src = ASTSource(getattr(m, kname), full, consts, None)
    opts = backend.parse_options({"num_warps": num_warps, "num_stages": num_stages})
    context = ir.context(); ir.load_dialects(context); backend.load_dialects(context)
    mod = src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), context)
    stages = {}; backend.add_stages(stages, opts, src.language); meta = {}; out = {}
    for name in ["ttir", "ttgir", "llir", "ptx", "cubin"]:
        mod = stages[name](mod, meta); out[name] = mod
    return meta, out
sig = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n_rows": "i32", "n_cols": "i32", "x_stride": "i32"}
P = sys.argv[1]  # row_sum/adaptive_single_launch.py as of commit 455ba5b (looped and loop-free kernels)
for kname, consts, w, st in [("_row_sum_tile", {"ROWS": 32, "BLOCK_N": 128, "EVICT": ""}, 4, 3),
                             ("_row_sum_one_step", {"ROWS": 32, "BLOCK_N": 128, "EVICT": ""}, 4, 3),
                             ("_row_sum_tile", {"ROWS": 1, "BLOCK_N": 4096, "EVICT": ""}, 16, 3),
                             ("_row_sum_one_step", {"ROWS": 1, "BLOCK_N": 4096, "EVICT": ""}, 16, 3)]:
    meta, out = build(P, kname, sig, consts, w, st)
    ptx = out["ptx"]
    print(kname, consts, "shared", meta.get("shared"), "cp.async", ptx.count("cp.async"), "ld.global", ptx.count("ld.global"),
          "ld.shared", ptx.count("ld.shared"), "bar.sync", ptx.count("bar.sync"))
import re
for kname, consts, w in [("_row_sum_tile", {"ROWS": 1, "BLOCK_N": 4096, "EVICT": ""}, 16), ("_row_sum_one_step", {"ROWS": 1, "BLOCK_N": 4096, "EVICT": ""}, 16)]:
    meta, out = build(P, kname, sig, consts, w, 3)
    body = [l for l in out["ptx"].splitlines() if l.strip() and not l.strip().startswith(("//", ".", "{", "}", "$"))]
    print(kname, "ptx instructions", len(body), "branches", sum(1 for l in body if "bra" in l), "regs", meta.get("num_regs"))
G = sys.argv[2]  # global_sum/single_launch_last_program.py as of commit 909a89c
for kname in ("_sum_one_program", "_sum_one_block"):
    meta, out = build(G, kname, {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}, {"BLOCK": 4096}, 8, 3)
    ptx = out["ptx"]; body = [l for l in ptx.splitlines() if l.strip() and not l.strip().startswith(("//", ".", "{", "}", "$"))]
    print(kname, "cp.async", ptx.count("cp.async"), "ld.global", ptx.count("ld.global"), "instructions", len(body), "shared", meta.get("shared"))
