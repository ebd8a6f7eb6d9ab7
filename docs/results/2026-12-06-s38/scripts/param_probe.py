"""Probe (not the harness; ranking only): a reference kernel's parameter points, set as module
constants, timed by triton.testing.do_bench against eager and torch.compile of the operator's
reference at the named shapes; outputs checked against the reference.
  python3 .carry/param_probe.py OPDIR KERNEL.py SHAPE,SHAPE 'K=V,K=V;K=V' [tag]"""
import importlib.util, json, os, sys
import torch, triton, yaml

opdir, kpath, shape_ids, points = sys.argv[1:5]
tag = sys.argv[5] if len(sys.argv) > 5 else os.path.basename(kpath)[:-3]
spec = yaml.safe_load(open(f"{opdir}/op.yaml"))
dtype = getattr(torch, spec.get("dtype", "float32"))

def load(path, name):
    s = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(s); s.loader.exec_module(m); return m

ref = load(f"{opdir}/reference.py", "ref_" + spec["name"])
shapes = {s["id"]: s["params"] for s in spec["shapes"] + spec.get("held_out_shapes", []) + spec.get("cpu_shapes", [])}
DEV = os.environ.get("DEV", "cuda")
def _graph_bench(f, warmup=50, rep=300):  # pure GPU time, as the harness's graph timing (no launch overhead)
    return triton.testing.do_bench_cudagraph(f, rep=100)
bench = (_graph_bench if os.environ.get("PROBE_TIMER", "graph") == "graph" else triton.testing.do_bench) if DEV == "cuda" else (lambda f, **k: (f(), 0.0)[1])
pts = [dict((kv.split("=")[0].strip(), int(kv.split("=")[1])) for kv in p.split(",") if kv.strip()) for p in points.split(";")]
rows = []
for sid in shape_ids.split(","):
    p = shapes[sid]
    torch._dynamo.reset()
    torch.manual_seed(0)
    inputs = ref.make_inputs(dtype=dtype, device=DEV, **p)
    init = {k: v for k, v in p.items() if k in ref.Model.__init__.__code__.co_varnames}
    model = ref.Model(**init).to(DEV, dtype) if init else ref.Model().to(DEV)
    with torch.no_grad():
        want = model(*inputs)
        comp = torch.compile(model, dynamic=False) if DEV == "cuda" else model
        comp(*inputs)
        for name, fn in [("eager", model), ("compile", comp)]:
            rows.append(dict(tag=tag, shape=sid, point=name, us=1e3 * bench(lambda: fn(*inputs), warmup=50, rep=300), ok=True))
        for pt in pts:
            try:
                km = load(kpath, f"k_{tag}_{abs(hash(json.dumps(pt)))}")
                for k, v in pt.items():
                    assert hasattr(km, k), f"no constant {k}"
                    setattr(km, k, v)
                cand = km.ModelNew(**init).to(DEV, dtype) if init else km.ModelNew().to(DEV)
                if init: cand.load_state_dict(model.state_dict())
                got = cand(*inputs)
                outs = got if isinstance(got, tuple) else (got,)
                wants = want if isinstance(want, tuple) else (want,)
                ok = all((torch.equal(a, b) if not a.is_floating_point() else torch.allclose(a.float(), b.float(), rtol=2e-2, atol=2e-2)) for a, b in zip(outs, wants))
                us = 1e3 * bench(lambda: cand(*inputs), warmup=50, rep=300)
                rows.append(dict(tag=tag, shape=sid, point=json.dumps(pt), us=us, ok=ok))
            except Exception as e:
                rows.append(dict(tag=tag, shape=sid, point=json.dumps(pt), us=float("nan"), ok=False, err=repr(e)[:300]))
        print("\n".join(f"{r['tag']:22s} {r['shape']:28s} {r['point']:60s} {r['us']:9.2f} {'ok' if r['ok'] else 'WRONG ' + r.get('err', '')}" for r in rows if r["shape"] == sid), flush=True)
out = os.environ.get("OUT", ".")
with open(f"{out}/probe-{tag}.json", "w") as f: json.dump(rows, f, indent=1)
