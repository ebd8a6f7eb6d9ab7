"""Offline sm_90 compile of Triton kernels (no GPU): Triton's own compiler stages and its bundled ptxas.
  python3 comp.py cases.json   (each case: kernel file, kernel name, signature, constexprs, warps)"""
import importlib.util, sys, json, re
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.backends.nvidia.compiler import CUDABackend
from triton._C.libtriton import ir

target = GPUTarget("cuda", 90, 32)
backend = CUDABackend(target)

def build(path, kname, sig, consts, num_warps):
    spec = importlib.util.spec_from_file_location("m", path)
    m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)
    fn = getattr(m, kname)
    full = dict(sig); full.update({k: "constexpr" for k in consts})
    src = ASTSource(fn, full, consts, None)
    opts = backend.parse_options({"num_warps": num_warps})
    context = ir.context(); ir.load_dialects(context); backend.load_dialects(context)
    mod = src.make_ir(target, opts, backend.get_codegen_implementation(opts), backend.get_module_map(), context)
    stages = {}
    backend.add_stages(stages, opts, src.language)
    meta = {}
    for name in ["ttir", "ttgir", "llir", "ptx", "cubin"]:
        mod = stages[name](mod, meta)
    return meta

cases = json.load(open(sys.argv[1]))
for c in cases:
    try:
        meta = build(c["path"], c["kernel"], c["sig"], c["consts"], c["warps"])
        print("OK  ", c["path"].split("reference_kernels/")[1], c["kernel"], c["consts"], "warps", c["warps"],
              "shared", meta.get("shared", "?"))
    except Exception as e:
        print("FAIL", c["path"].split("reference_kernels/")[1], c["kernel"], c["consts"], repr(e)[:400])
