"""Compile an operator's reference with torch.compile(dynamic=False) at one shape, run it, and leave
Inductor's generated module (.py) and autotune choice (.best_config) in TORCHINDUCTOR_CACHE_DIR.
Design facts only (configs, loop structure): never commit Inductor's code.
  TORCHINDUCTOR_CACHE_DIR=D python3 .carry/inductor_dump.py OPDIR SHAPE"""
import importlib.util, os, sys
import torch, yaml
opdir, sid = sys.argv[1:3]
spec = yaml.safe_load(open(f"{opdir}/op.yaml"))
dtype = getattr(torch, spec.get("dtype", "float32"))
s = importlib.util.spec_from_file_location("ref", f"{opdir}/reference.py"); ref = importlib.util.module_from_spec(s); s.loader.exec_module(ref)
p = {x["id"]: x["params"] for x in spec["shapes"] + spec.get("held_out_shapes", [])}[sid]
torch.manual_seed(0)
inputs = ref.make_inputs(dtype=dtype, device="cuda", **p)
init = {k: v for k, v in p.items() if k in ref.Model.__init__.__code__.co_varnames}
model = ref.Model(**init).to("cuda", dtype) if init else ref.Model().to("cuda")
with torch.no_grad():
    comp = torch.compile(model, dynamic=False)
    for _ in range(3):
        comp(*inputs)
torch.cuda.synchronize()
print("compiled", opdir, sid)
