"""How close a memory-bound kernel can come to the datasheet bandwidth on this GPU, and by which way
of loading and storing: copy and rmsnorm kernels of the same shape written several ways, each timed
by the harness's own timer (`GpuTimer`: covering L2 flush, graph replay below its threshold), SOL
against the datasheet bandwidth and against the copy ceiling `aka doctor --calibrate` measured.

  PYTHONPATH=. python3 tools/bw_probe.py [--shapes 16384x4096,4096x8192,2048x4096,1280x4096] [--out probe.json]

Ways (copy: y = x; rmsnorm: y = x * rsqrt(mean(x^2) + eps) * w; bf16 throughout):
  torch        y.copy_(x) (copy only)
  rows         one row per program, the row whole in registers
  rows_hint    the same with evict_first loads and streaming (.cs) stores
  flat         (copy only) a flat 1-D grid of 4096-element blocks
  persistent   a grid of SMs x 2 programs, each looping over rows (tl.range, num_stages=2)
  tma          (copy only) 16x256 tiles through TMA tensor descriptors, one tile per program
  tma_persist  (copy only) the same tiles, a grid of SMs x 2 looping (the pipeliner double-buffers)
Needs a CUDA GPU (Hopper for the TMA ways; they are skipped elsewhere). The kernels are this file's
own, run in this process.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
import triton
import triton.language as tl

from aka.evaluate.timing import GpuTimer

DATASHEET_BYTES_PER_S = 4.8e12
"""H200 HBM3e, the vendor's datasheet figure (the SOL the project reports)."""


@triton.jit
def _copy_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr, HINT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = row * n_cols + tl.arange(0, BLOCK)
    if HINT:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, eviction_policy="evict_first"), cache_modifier=".cs")
    else:
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def _copy_flat(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def _copy_persistent(x_ptr, y_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=2):
        offs = row * n_cols + cols  # the probe shapes stay under 2**31 elements
        tl.store(y_ptr + offs, tl.load(x_ptr + offs))


@triton.jit
def _copy_tma(x_desc, y_desc, n_tiles_n, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    m, n = pid // n_tiles_n, pid % n_tiles_n
    y_desc.store([m * BM, n * BN], x_desc.load([m * BM, n * BN]))


@triton.jit
def _copy_tma_persistent(x_desc, y_desc, n_tiles, n_tiles_n, BM: tl.constexpr, BN: tl.constexpr):
    for t in tl.range(tl.program_id(0), n_tiles, tl.num_programs(0), num_stages=3):
        m, n = t // n_tiles_n, t % n_tiles_n
        y_desc.store([m * BM, n * BN], x_desc.load([m * BM, n * BN]))


@triton.jit
def _norm_rows(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr, HINT: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    offs = row * n_cols + cols
    if HINT:
        x = tl.load(x_ptr + offs, eviction_policy="evict_first").to(tl.float32)
    else:
        x = tl.load(x_ptr + offs).to(tl.float32)
    w = tl.load(w_ptr + cols, eviction_policy="evict_last").to(tl.float32)
    y = (x * tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps) * w).to(y_ptr.dtype.element_ty)
    if HINT:
        tl.store(y_ptr + offs, y, cache_modifier=".cs")
    else:
        tl.store(y_ptr + offs, y)


@triton.jit
def _norm_persistent(x_ptr, w_ptr, y_ptr, n_rows, n_cols, eps, BLOCK: tl.constexpr):
    cols = tl.arange(0, BLOCK)
    w = tl.load(w_ptr + cols).to(tl.float32)
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=2):
        offs = row * n_cols + cols  # the probe shapes stay under 2**31 elements
        x = tl.load(x_ptr + offs).to(tl.float32)
        y = x * tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps) * w
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))


def _warps(n_cols: int) -> int:
    return max(1, min(16, n_cols // 512))


def ways(x: torch.Tensor, y: torch.Tensor, w: torch.Tensor) -> dict[str, dict[str, object]]:
    """Every (op, way) as a no-argument call writing y."""
    rows, cols = x.shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    nw = _warps(cols)
    grid_p = (min(rows, 2 * sms),)
    found: dict[str, dict[str, object]] = {"copy": {}, "rmsnorm": {}}
    copy, norm = found["copy"], found["rmsnorm"]
    copy["torch"] = lambda: y.copy_(x)
    copy["rows"] = lambda: _copy_rows[(rows,)](x, y, cols, BLOCK=cols, HINT=False, num_warps=nw)
    copy["rows_hint"] = lambda: _copy_rows[(rows,)](x, y, cols, BLOCK=cols, HINT=True, num_warps=nw)
    copy["flat"] = lambda: _copy_flat[(x.numel() // 4096,)](x, y, BLOCK=4096, num_warps=8)
    copy["persistent"] = lambda: _copy_persistent[grid_p](x, y, rows, cols, BLOCK=cols, num_warps=nw)
    if torch.cuda.get_device_capability(0)[0] >= 9:
        from triton.tools.tensor_descriptor import TensorDescriptor

        bm, bn = 16, 256
        xd, yd = TensorDescriptor.from_tensor(x, [bm, bn]), TensorDescriptor.from_tensor(y, [bm, bn])
        tiles_n, tiles = cols // bn, (rows // bm) * (cols // bn)
        copy["tma"] = lambda: _copy_tma[(tiles,)](xd, yd, tiles_n, BM=bm, BN=bn, num_warps=4)
        copy["tma_persist"] = lambda: _copy_tma_persistent[(2 * sms,)](xd, yd, tiles, tiles_n, BM=bm, BN=bn,
                                                                        num_warps=4)
    eps = 1e-6
    norm["rows"] = lambda: _norm_rows[(rows,)](x, w, y, cols, eps, BLOCK=cols, HINT=False, num_warps=nw)
    norm["rows_hint"] = lambda: _norm_rows[(rows,)](x, w, y, cols, eps, BLOCK=cols, HINT=True, num_warps=nw)
    norm["persistent"] = lambda: _norm_persistent[grid_p](x, w, y, rows, cols, eps, BLOCK=cols, num_warps=nw)
    return found


def reference(op: str, x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    if op == "copy":
        return x
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)


def probe(shapes: list[tuple[int, int]], copy_ceiling: float | None) -> list[dict]:
    timer = GpuTimer()
    out = []
    for rows, cols in shapes:
        x = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
        nbytes = 2 * x.numel() * x.element_size()
        for op, calls in ways(x, y, w).items():
            want = reference(op, x, w)
            for way, call in calls.items():
                row = {"shape": f"{rows}x{cols}", "op": op, "way": way, "mb": nbytes / 1e6}
                try:
                    y.zero_()
                    call()
                    torch.cuda.synchronize()
                    row["max_err"] = float((y.float() - want.float()).abs().max())
                    t = timer.bench([call])
                    row.update(us=t.median_us, method=t.method, cv=t.cv,
                               sol=nbytes / (t.median_us * 1e-6) / DATASHEET_BYTES_PER_S)
                    if copy_ceiling:
                        row["of_copy_ceiling"] = nbytes / (t.median_us * 1e-6) / copy_ceiling
                except Exception as exc:  # noqa: BLE001 - a way that fails to compile is a row, not a stop
                    row["error"] = f"{type(exc).__name__}: {str(exc)[:300]}"
                out.append(row)
    return out


def table(rows: list[dict]) -> str:
    lines = [f"{'shape':>11s} {'op':8s} {'way':12s} {'MB':>7s} {'µs':>9s} {'method':7s} {'SOL':>6s} "
             f"{'/copy':>6s} {'err':>8s}"]
    for r in rows:
        if "error" in r:
            lines.append(f"{r['shape']:>11s} {r['op']:8s} {r['way']:12s} error: {r['error'][:80]}")
            continue
        lines.append(f"{r['shape']:>11s} {r['op']:8s} {r['way']:12s} {r['mb']:7.1f} {r['us']:9.2f} "
                     f"{r['method']:7s} {r['sol']:6.3f} {r.get('of_copy_ceiling', 0):6.3f} {r['max_err']:8.2g}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default="16384x4096,4096x8192,2048x4096,1280x4096")
    ap.add_argument("--calibration", default="", help="`aka doctor --calibrate --json` output: SOL against "
                                                       "its copy ceiling too")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    shapes = [tuple(int(v) for v in s.split("x")) for s in args.shapes.split(",")]
    ceiling = None
    if args.calibration:
        cal = json.loads(Path(args.calibration).read_text())
        ceiling = cal.get("calibration", cal).get("copy_bandwidth")
    rows = probe(shapes, ceiling)
    if args.out:
        Path(args.out).write_text(json.dumps(rows, indent=1))
    print(table(rows))


if __name__ == "__main__":
    main()
