"""The application a profiler runs: launch a candidate for some shapes, inside a profiler range.

  python -m aka.evaluate.profile_driver OP CANDIDATE --shapes a,b --warmup 3 --iters 5 [--reference] [--compile]

Model construction, input generation and warm-up launches happen before cudaProfilerStart, so
`ncu --profile-from-start off` (or `nsys --capture-range=cudaProfilerApi`) sees only the `iters`
launches of each shape, in the order given. `--reference` profiles the eager reference instead;
`--compile` profiles the reference under torch.compile (compiled during the warm-up launches), the
baseline a kernel must beat. TF32 is off, as in the harness's worker: without that, cuDNN runs a
float32 convolution on TF32 tensor cores (PyTorch's default), a baseline the harness never times.
"""

from __future__ import annotations

import argparse

import torch

from aka.evaluate.correctness import build_pair
from aka.evaluate.loading import Operator, compiled_reference, load_module
from aka.evaluate.worker import exact_fp32
from aka.spec.load import load_op


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("op")
    ap.add_argument("candidate")
    ap.add_argument("--shapes", default="")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iters", type=int, default=5)
    ap.add_argument("--reference", action="store_true", help="profile the eager reference instead")
    ap.add_argument("--compile", action="store_true", help="profile torch.compile of the reference instead")
    args = ap.parse_args()
    exact_fp32()           # as the harness times it: a float32 operator's cuDNN and cuBLAS calls in IEEE float32
    spec = load_op(args.op)
    op = Operator(spec.to_dict(), "cuda", spec.dtype)
    cand_cls = load_module(args.candidate, "candidate").ModelNew
    ids = [s for s in args.shapes.split(",") if s] or [s.id for s in spec.shapes]
    for sid in ids:
        params = spec.shape(sid).params
        pair = build_pair(op, cand_cls, params, seed=0)
        model = compiled_reference(pair.ref) if args.compile else pair.ref if args.reference else pair.cand
        inputs = op.make_inputs(params, seed=1)
        with torch.no_grad():
            for _ in range(args.warmup):
                inputs.call(model)
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStart()
            for _ in range(args.iters):
                inputs.call(model)
            torch.cuda.synchronize()
            torch.cuda.cudart().cudaProfilerStop()
        print(f"shape {sid} iters {args.iters}", flush=True)


if __name__ == "__main__":
    main()
