"""Human-readable tables (rich) for command results."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table

from aka.spec.result import EvalResult, ShapeResult, speedup_text


def _us(t) -> str:
    return f"{t.median_us:,.1f} ±{t.iqr_us / 2:,.1f}" if t else "—"


def _x(v: float | None) -> str:
    return speedup_text(v, suffix="", none="—")


def _sol(s: ShapeResult) -> tuple[str, str, str]:
    r = s.roofline
    if r is None:
        return "n/a", "n/a", "n/a"
    flag = " (!)" if r.flag else ""
    basis = " bytes-only" if r.basis == "bytes-only" else ""
    return _x(r.sol) + flag + basis, _x(r.sol_calibrated), _x(r.sol_launch_adjusted)


def render_eval(result: EvalResult, console: Console | None = None) -> None:
    console = console or Console(width=None if sys.stdout.isatty() else 160)
    gpu = result.mode == "gpu"
    prod = any("production" in s.baselines for s in result.shapes)
    cols = ["shape", "correct", "max abs err", "time µs" if gpu else "time µs (CPU interpreter)", "eager"]
    cols += ["production"] if prod else []
    if gpu:
        cols += ["torch.compile", "× eager", "× compile"] + (["× production"] if prod else [])
        cols += ["SOL", "SOL cal.", "SOL +launch"]
    table = Table(title=f"{result.op} — {result.candidate}", title_justify="left")
    for col in cols:
        table.add_column(col, justify="left" if col == "shape" else "right")
    for s in result.shapes:
        row = [
            s.id + (" (held out)" if s.held_out else ""), {True: "yes", False: "NO", None: "—"}[s.correct],
            f"{s.max_abs_err:.2e}" if s.max_abs_err is not None else "—",
            _us(s.time) + (" [graph]" if s.time and s.time.method == "graph" else ""),
            _us(s.baselines.get("eager")),
        ]
        row += [_us(s.baselines.get("production"))] if prod else []
        if gpu:
            row += [_us(s.baselines.get("torch.compile")), _x(s.speedup.get("eager")),
                    _x(s.speedup.get("torch.compile"))]
            row += [_x(s.speedup.get("production"))] if prod else []
            row += [*_sol(s)]
        table.add_row(*row)
    console.print(table)
    for s in result.shapes:
        if s.roofline and s.roofline.flag:
            console.print(f"[yellow]{s.id}: {s.roofline.flag}[/yellow]")
    for note in result.notes:
        console.print(f"note: {note}")
    if result.device:
        nv = result.device.get("nvml") or {}
        cond = (f"  SM {nv.get('sm_clock_mhz')}/{nv.get('max_sm_clock_mhz')} MHz, "
                f"{nv.get('temperature_c')} °C, {nv.get('power_w')} W, "
                f"throttle: {', '.join(nv.get('throttle_reasons') or []) or 'none'}"
                if nv.get("available") else "")
        console.print(f"device: {result.device.get('name')}{cond}  dtype run: {result.dtype}  "
                      f"wall: {result.wall_s:.1f} s")
    verdict = "[green]ACCEPTED[/green]" if result.accepted else f"[red]{result.status.value.upper()}[/red]"
    console.print(f"verdict: {verdict}")
    for r in result.rejections:
        console.print(f"  rejected — {r}", markup=False, highlight=False)
