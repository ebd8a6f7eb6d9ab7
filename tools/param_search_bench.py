"""Template-parameter search by shape bucket against exhaustive search, on the CPU interpreter or a GPU.

    python tools/param_search_bench.py OP [OP ...] [--suite suites/llm-inference] [--device auto|cpu|cuda]
        [--max-configs N] [--seeds 5] [--eps 0.02] [--tolerance 0.03] [--time-budget S] [--jobs 8] [--out DIR]

Per operator:
1. the exhaustive table: every configuration (eligible reference-kernel family x parameter point;
   with --max-configs a seeded sample that keeps each family's defaults) timed at every visible and
   held-out shape, in this process (the shipped kernels are trusted; no sandbox), after --jobs
   processes compiled them all (GPU); an output that does not match the reference within the
   operator's tolerance counts as failed;
2. the budget: evaluations (one configuration at every visible shape, as the harness judges one
   candidate) each search method needs until every visible shape has a configuration within --eps
   of the exhaustive best: exhaustive (the table's order), random (mean over --seeds), per-shape TPE
   (what `aka optimize`'s tuner does: screen defaults, then the family fastest at each shape in
   turn), and bucketed TPE (aka.propose.buckets: the same budget spent per learned shape bucket);
3. unseen shapes: the buckets learned from the visible shapes assign each held-out shape a
   configuration; its slowdown against the held-out shape's own exhaustive best, beside the
   dispatcher's rule (the nearest tuned shape by total size) and the single best configuration.
Writes param_search.json and param_search.md under --out and prints the table last. On the CPU
interpreter the times only rank (labelled so).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def configurations(spec, device: dict, max_configs: int | None, seed: int) -> tuple[dict, dict, dict]:
    """(space: family -> points, defaults: family -> point, sources: family -> source)."""
    from aka.propose.tuner import eligible
    from aka.spec.kernel import read_kernel_meta

    space, defaults, sources = {}, {}, {}
    op = {"name": spec.name, "backend": spec.backend}
    for path in sorted((ROOT / "reference_kernels" / spec.name).glob("*.py")):
        meta = read_kernel_meta(path)
        if eligible(meta, op, device):
            continue
        family = path.relative_to(ROOT / "reference_kernels").as_posix()
        names = sorted(meta.params)
        space[family] = [{**meta.defaults(), **dict(zip(names, c))}
                         for c in itertools.product(*(meta.params[n].values for n in names))]
        defaults[family] = meta.defaults()
        sources[family] = path.read_text()
    if max_configs:
        from aka.propose.buckets import key

        every = [(f, p) for f in space for p in space[f]]
        keep = {key(f, defaults[f]) for f in space}
        rest = [fp for fp in every if key(*fp) not in keep]
        random.Random(seed).shuffle(rest)
        chosen = keep | {key(*fp) for fp in rest[: max(0, max_configs - len(keep))]}
        space = {f: [p for p in pts if key(f, p) in chosen] for f, pts in space.items()}
    return space, defaults, sources


def materialize(space, sources, workdir: Path) -> list[tuple[str, Path]]:
    """(config, file) for every configuration, written into WORKDIR."""
    from aka.propose.buckets import key
    from aka.spec.candidate import Candidate

    out = []
    for family in sorted(space):
        for params in space[family]:
            path = workdir / f"c{len(out):04d}.py"
            path.write_text(Candidate(sources[family], params, "tuner", family).materialize())
            out.append((key(family, params), path))
    return out


def warm(spec, files, shapes, jobs: int, budget_s: float, log) -> None:
    """Compile every configuration at every shape in JOBS processes first (Triton's on-disk cache
    then serves the timing process), so the exhaustive table costs compile time / JOBS. After
    BUDGET_S the compilers are stopped: what they did not reach compiles in the timing pass, under
    its own budget."""
    from multiprocessing import TimeoutError as PoolTimeout
    from multiprocessing import get_context

    t0 = time.monotonic()
    chunks = [files[i::jobs] for i in range(jobs)]
    pool = get_context("spawn").Pool(jobs)
    try:
        pending = pool.map_async(_warm_chunk, [(spec.to_dict(), [str(p) for _, p in c], [s.params for s in shapes])
                                               for c in chunks if c])
        pending.get(timeout=budget_s)
        log(f"  compiled {len(files)} configurations in {jobs} processes in {time.monotonic() - t0:.0f} s")
    except PoolTimeout:
        log(f"  compiling stopped after {budget_s:.0f} s (the rest compiles while timing)")
    finally:
        pool.terminate()
        pool.join()


def _warm_chunk(job) -> None:
    import torch

    from aka.evaluate.correctness import build_pair
    from aka.evaluate.loading import Operator, load_module

    spec, paths, shapes = job
    op = Operator(spec, "cuda", spec["dtype"])
    for i, path in enumerate(paths):
        try:
            cls = load_module(path, f"warm{i}").ModelNew
        except Exception:  # noqa: BLE001 - the timing pass records it
            continue
        for params in shapes:
            try:
                pair = build_pair(op, cls, params, seed=0)
                with torch.no_grad():
                    op.make_inputs(params, seed=0).call(pair.cand)
                torch.cuda.synchronize()
            except Exception:  # noqa: BLE001 - the timing pass records it
                pass
        Path(path + WARM).touch()                   # compiled (or failed) at every shape


WARM = ".warm"
"""Suffix of the marker a compiling process leaves beside a configuration it finished."""


def measure(spec, files, shapes, device: str, budget_s: float, log, warmed: bool = False) -> tuple[dict, int]:
    """The table: config -> shape -> µs (absent: failed or not reached); and the configs measured.
    WARMED: the compiling processes ran; a configuration they did not finish within their budget
    (a register-file-sized tile can take minutes to compile) counts as failed, not compiled here."""
    import torch

    from aka.evaluate.correctness import build_pair
    from aka.evaluate.loading import Operator, load_module

    dtype = spec.dtype if device == "cuda" else "float32"
    op = Operator(spec.to_dict(), device, dtype)
    tol = spec.tolerance_for(dtype)
    table, start = {}, time.monotonic()
    for n, (config, path) in enumerate(files):
        if time.monotonic() - start > budget_s:
            log(f"  time budget of {budget_s:.0f} s spent after {n} configurations")
            break
        row = {}
        if warmed and not Path(str(path) + WARM).exists():
            log(f"  {config}: not compiled within the compile budget (counted as failed)")
            table[config] = row
            continue
        try:
            cls = load_module(str(path), f"bench{n}").ModelNew
        except Exception as exc:  # noqa: BLE001 - a configuration that does not load is a failed row
            log(f"  {config}: does not load ({type(exc).__name__})")
            cls = None
        for shape in shapes if cls is not None else ():
            us = _time_one(op, cls, shape.params, tol, device, torch, build_pair)
            if us is not None:
                row[shape.id] = us
        table[config] = row
    return table, len(table)


def _time_one(op, cls, params, tol, device, torch, build_pair) -> float | None:
    try:
        pair = build_pair(op, cls, params, seed=0)
        inputs = op.make_inputs(params, seed=0)
        ref = op.reference_forward(pair.ref, inputs.clone())
        with torch.no_grad():
            out = inputs.clone().call(pair.cand)
        if not _close(out, ref, tol, torch):
            return None
        run = inputs.clone()
        if device == "cuda":
            import triton.testing

            with torch.no_grad():
                return 1000.0 * triton.testing.do_bench(lambda: run.call(pair.cand), warmup=5, rep=20)
        samples = []
        with torch.no_grad():
            for _ in range(3):
                t0 = time.perf_counter()
                run.call(pair.cand)
                samples.append((time.perf_counter() - t0) * 1e6)
        return statistics.median(samples)
    except Exception:  # noqa: BLE001 - a configuration that fails at a shape has no time there
        return None


def _close(out, ref, tol, torch) -> bool:
    outs = out if isinstance(out, (tuple, list)) else [out]
    refs = ref if isinstance(ref, (tuple, list)) else [ref]
    if len(outs) != len(refs):
        return False
    for a, b in zip(outs, refs):
        if not isinstance(a, torch.Tensor) or a.shape != b.shape:
            return False
        if a.is_floating_point():
            if not torch.allclose(a.double(), b.double(), atol=tol.atol, rtol=tol.rtol):
                return False
        elif not torch.equal(a, b):
            return False
    return True


# --- the methods, replayed over the measured table -------------------------------------------------
def evals_to_target(order, table, shapes, eps) -> int | None:
    """How many of ORDER's evaluations until every shape is within EPS of the table's best."""
    from aka.propose.buckets import best_times

    target = best_times(table, shapes)
    found = {s: math.inf for s in shapes}
    for n, config in enumerate(order, 1):
        for s in shapes:
            found[s] = min(found[s], table.get(config, {}).get(s, math.inf))
        if all(found[s] <= target[s] * (1 + eps) for s in shapes if math.isfinite(target[s])):
            return n
    return None


def run_method(ask, table, limit) -> list[str]:
    """Drive an ask(observed) strategy against the table (each ask is one evaluation)."""
    seen, order = {}, []
    while len(order) < limit:
        config = ask(seen)
        if config is None or config in seen:
            break
        seen[config] = table.get(config, {})
        order.append(config)
    return order


def per_shape_tpe(space, defaults, shapes, seed):
    """The greedy tuner's order: defaults of every family, then per shape in turn the family
    fastest there, a TPE point for that shape alone."""
    from aka.propose.buckets import _tpe, key, split

    def ask(seen):
        for f in sorted(space):
            if key(f, defaults[f]) not in seen:
                return key(f, defaults[f])
        tried = set(seen)
        for s in shapes[len(seen) % len(shapes):] + shapes[: len(seen) % len(shapes)]:
            ranked = sorted(space, key=lambda f: min((r[s] for c, r in seen.items() if split(c)[0] == f and s in r),
                                                     default=math.inf))
            for f in ranked:
                p = _tpe(f, space[f], seen, [s], tried, seed + len(seen))
                if p is not None:
                    return key(f, p)
        return None
    return ask


def compare(table, space, defaults, visible, weights, feats, args) -> dict:
    from aka.propose.buckets import BucketedSearch

    shapes = [s.id for s in visible]
    n = len(table)
    exhaustive = list(table)
    out = {"configs": n, "exhaustive": evals_to_target(exhaustive, table, shapes, args.eps)}
    rand = []
    for seed in range(args.seeds):
        order = list(table)
        random.Random(seed).shuffle(order)
        rand.append(evals_to_target(order, table, shapes, args.eps) or n)
    out["random"] = round(statistics.mean(rand), 1)
    tpe, bucketed = [], []
    for seed in range(args.seeds):
        tpe.append(evals_to_target(run_method(per_shape_tpe(space, defaults, shapes, seed), table, n), table,
                                   shapes, args.eps) or n)
        search = BucketedSearch(space, defaults, {s: feats[s] for s in shapes}, weights, args.tolerance, seed)
        bucketed.append(evals_to_target(run_method(search.ask, table, n), table, shapes, args.eps) or n)
    out["per_shape_tpe"] = round(statistics.mean(tpe), 1)
    out["bucketed_tpe"] = round(statistics.mean(bucketed), 1)
    return out


def held_out(table, visible, held, feats, weights, tolerance) -> dict:
    """Slowdown at each held-out shape of: its learned bucket's config, the nearest tuned shape's
    best (the dispatcher's rule), the single best config over the visible shapes."""
    from aka.propose.buckets import best_times, learn

    vis = [s.id for s in visible]
    buckets = learn({c: {s: t for s, t in r.items() if s in vis} for c, r in table.items()},
                    {s: feats[s] for s in vis}, tolerance)
    best = best_times(table, vis + [h.id for h in held])
    per_shape = {s: min((c for c in table if s in table[c]), key=lambda c: table[c][s]) for s in vis
                 if math.isfinite(best[s])}
    total = {c: sum(weights.get(s, 1.0) * math.log(r[s]) for s in vis) for c, r in table.items()
             if all(s in r for s in vis)}
    single = min(total, key=total.get) if total else None
    rows = []
    for h in held:
        if not math.isfinite(best[h.id]):
            continue
        nearest = min(vis, key=lambda s: abs(sum(feats[s]) - sum(feats[h.id])))
        slow = lambda c: (table.get(c, {}).get(h.id, math.inf) / best[h.id]) if c else math.inf  # noqa: E731
        rows.append({"shape": h.id, "bucket": round(slow(buckets.of(feats[h.id]).config), 3),
                     "nearest_shape": round(slow(per_shape.get(nearest)), 3), "single_best": round(slow(single), 3)})
    return {"buckets": buckets.to_dict(), "held_out": rows}


def bench_op(name: str, args, device: str, log) -> dict:
    from aka.propose.buckets import features
    from aka.spec.load import load_op

    spec = load_op(args.suite / name)
    interpreter = device != "cuda"
    visible, held = spec.run_shapes(interpreter)
    dev = {"kind": "cuda", "vendor": "nvidia", "arch": "sm90"} if device == "cuda" else {"kind": "cpu"}
    if device == "cuda":
        import torch

        major, minor = torch.cuda.get_device_capability()
        dev["arch"] = f"sm{major}{minor}"
    space, defaults, sources = configurations(spec, dev, args.max_configs, args.seed)
    t0 = time.monotonic()
    warmed = device == "cuda" and args.jobs > 1
    with tempfile.TemporaryDirectory(prefix="aka-param-bench-") as workdir:
        files = materialize(space, sources, Path(workdir))
        if warmed:
            warm(spec, files, list(visible) + list(held), args.jobs, args.compile_budget, log)
        table, done = measure(spec, files, list(visible) + list(held), device, args.time_budget, log, warmed)
    space = {f: [p for p in pts if _k(f, p) in table] for f, pts in space.items()}
    space = {f: pts for f, pts in space.items() if pts and _k(f, defaults[f]) in table}
    table = {c: r for c, r in table.items() if c.split("|")[0] in space}
    weights = {s.id: s.weight for s in visible}
    feats = {s.id: features(s.params) for s in list(visible) + list(held)}
    result = {"op": name, "device": device, "timing": "cpu-interpreter (rank only)" if interpreter else "gpu do_bench",
              "measure_s": round(time.monotonic() - t0, 1), "families": len(space)}
    result.update(compare(table, space, defaults, visible, weights, feats, args))
    result.update(held_out(table, visible, held, feats, weights, args.tolerance))
    result["table"] = table
    return result


def _k(family, params):
    from aka.propose.buckets import key

    return key(family, params)


def render(results: list[dict]) -> str:
    head = ["op", "timing", "configs", "exhaustive", "random", "per-shape TPE", "bucketed TPE", "buckets",
            "held-out slowdown (bucket / nearest shape / single best)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in results:
        held = "; ".join(f"{h['shape']}: {h['bucket']}x / {h['nearest_shape']}x / {h['single_best']}x"
                         for h in r["held_out"]) or "n/a"
        lines.append(f"| {r['op']} | {r['timing']} | {r['configs']} | {r['exhaustive']} | {r['random']} | "
                     f"{r['per_shape_tpe']} | {r['bucketed_tpe']} | {len(r['buckets'])} | {held} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--suite", type=Path, default=ROOT / "suites" / "llm-inference")
    ap.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    ap.add_argument("--max-configs", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--eps", type=float, default=0.02)
    ap.add_argument("--tolerance", type=float, default=0.03)
    ap.add_argument("--time-budget", type=float, default=600.0, help="seconds of timing per operator")
    ap.add_argument("--jobs", type=int, default=8, help="processes compiling the configurations first (GPU)")
    ap.add_argument("--compile-budget", type=float, default=120.0, help="seconds those processes may take per operator")
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args(argv)
    for name in args.ops:
        if not (args.suite / name / "op.yaml").is_file():
            ap.error(f"no operator {name!r} under --suite {args.suite}")
    device = args.device
    if device == "auto":
        device = "cuda" if _cuda() else "cpu"
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    elif not _cuda():
        print("param_search_bench: --device cuda but no GPU is visible", file=sys.stderr)
        return 3
    log = lambda m: print(m, file=sys.stderr, flush=True)  # noqa: E731
    results = []
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.ops:                         # written after each operator: a run cut short keeps them
        log(f"{name}: measuring ({device})")
        results.append(bench_op(name, args, device, log))
        (args.out / "param_search.json").write_text(json.dumps(results, indent=1))
        table = render(results)
        (args.out / "param_search.md").write_text(table)
    print(table, end="")
    return 0


def _cuda() -> bool:
    if os.environ.get("AKA_DEVICE") == "cpu" or os.environ.get("TRITON_INTERPRET") == "1":
        return False
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


if __name__ == "__main__":
    sys.exit(main())
