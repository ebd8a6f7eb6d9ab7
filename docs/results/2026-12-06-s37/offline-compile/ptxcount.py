"""Offline sm_90 PTX of two kernels' 64x64 tile (no GPU): instruction and shuffle counts."""
import importlib.util, re, sys
sys.argv = ["x", "/dev/null"]
spec = importlib.util.spec_from_file_location("comp", "/work/main/docs/results/h100-2026-12-06-s36/offline-compile/comp.py")
src = open(spec.origin).read().split("cases = json.load")[0]
ns = {}; exec(src, ns)
from triton.backends.compiler import GPUTarget
def ptx(path, kname, sig, consts, warps):
    import importlib.util as iu
    from triton.compiler import ASTSource
    from triton._C.libtriton import ir
    s = iu.spec_from_file_location("m", path); m = iu.module_from_spec(s); s.loader.exec_module(m)
    fn = getattr(m, kname); full = dict(sig); full.update({k: "constexpr" for k in consts})
    b = ns["backend"]; t = ns["target"]
    src_ = ASTSource(fn, full, consts, None); opts = b.parse_options({"num_warps": warps})
    ctx = ir.context(); ir.load_dialects(ctx); b.load_dialects(ctx)
    mod = src_.make_ir(t, opts, b.get_codegen_implementation(opts), b.get_module_map(), ctx)
    st = {}; b.add_stages(st, opts, src_.language); meta = {}
    for n in ["ttir", "ttgir", "llir", "ptx"]:
        mod = st[n](mod, meta)
    return mod
sig = {"x_ptr": "*fp32", "val_ptr": "*fp32", "idx_ptr": "*i64", "n_rows": "i32", "n_cols": "i32", "x_stride": "i32"}
for k in ("adaptive_single_launch", "packed_key_tiles"):
    p = ptx(f"/work/main/reference_kernels/row_max_argmax/{k}.py", "_rows_tile", sig, {"ROWS": 64, "BLOCK_N": 64}, 4)
    body = [l.strip() for l in p.splitlines() if l.strip() and not l.strip().startswith(("//", ".", "$", "{", "}", ")", "("))]
    ins = [l for l in body if re.match(r"^@?!?%?\w*\s*[a-z]", l)]
    print(f"{k:24s} ROWS=64 BLOCK_N=64 warps=4: ptx instructions {len(ins)}, shfl {sum('shfl' in l for l in ins)}, "
          f"ld.global {sum('ld.global' in l for l in ins)}, bar.sync {sum('bar.sync' in l for l in ins)}, "
          f"st.shared {sum('st.shared' in l for l in ins)}")
