"""`aka optimize OP`: search for a faster kernel (the embedded tuner when no model is configured)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from aka.cli.common import handled, print_json
from aka.spec.result import speedup_text


def register(app: typer.Typer) -> None:
    app.command("optimize")(optimize_command)


def optimize_command(
    op: Optional[Path] = typer.Argument(None, help="Folder with op.yaml, an op.yaml, or a KernelBench problem file "
                                                   "(optional with --resume)."),
    iterations: Optional[int] = typer.Option(None, "--iterations", min=1,
                                             help="Candidates to evaluate (default 10; with --resume, the "
                                                  "session's own budget unless given)."),
    time_limit: Optional[float] = typer.Option(None, "--time-limit", min=0.1, help="Stop after this many minutes."),
    target_sol: Optional[float] = typer.Option(None, "--target-sol", min=0.0, max=1.0,
                                               help="Stop once the best kernel's weighted speed-of-light reaches this."),
    stall: int = typer.Option(3, "--stall", min=1, help="Candidates without improvement before a dropout (a focused trial counts its share of the shapes)."),
    max_dropouts: int = typer.Option(3, "--max-dropouts", min=1, help="Stop after this many fruitless dropouts."),
    resume: Optional[str] = typer.Option(None, "--resume", help="Continue the session SESSION (folder or id)."),
    sessions_dir: Path = typer.Option(Path("sessions"), "--sessions-dir", help="Where sessions live."),
    seed: int = typer.Option(0, "--seed", help="Seed of inputs, sampling and dropout."),
    shape: Optional[List[str]] = typer.Option(None, "--shape", help="Only these visible shape ids."),
    device: str = typer.Option("auto", "--device", help="auto, cuda or cpu (cpu: Triton interpreter)."),
    kb: str = typer.Option("auto", "--kb", help="Knowledge base: auto, chroma, memory or none."),
    kb_dir: Optional[Path] = typer.Option(None, "--kb-dir", help="Index folder (default: .aka/kb)."),
    embedder: str = typer.Option("minilm-l6-v2", "--embedder", help="Embedding model of the knowledge base."),
    kernels: Optional[List[Path]] = typer.Option(None, "--kernels", help="Reference-kernel folders "
                                                                         "(default: the shipped reference_kernels/)."),
    reps: int = typer.Option(100, "--reps", min=10, help="Timed repetitions per measurement."),
    eval_timeout: float = typer.Option(300.0, "--eval-timeout", min=10.0,
                                       help="Seconds one candidate's evaluation may take before it is a timeout."),
    model: Optional[str] = typer.Option(None, "--model", envvar="AKA_MODEL",
                                        help="A litellm model string: the LLM proposes candidates (default: "
                                             "the embedded tuner). Keys come from the provider's usual "
                                             "environment variables."),
    api_base: Optional[str] = typer.Option(None, "--api-base", help="An OpenAI-compatible endpoint (vLLM, "
                                                                     "SGLang, Ollama, llama.cpp)."),
    max_cost: Optional[float] = typer.Option(None, "--max-cost", min=0.0,
                                             help="Stop once the model calls cost this many USD."),
    max_tokens: Optional[int] = typer.Option(None, "--max-tokens", min=1,
                                             help="Stop once the model calls used this many tokens."),
    llm_timeout: float = typer.Option(600.0, "--llm-timeout", min=1.0,
                                      help="Seconds one model call may take before it is retried."),
    strategy: str = typer.Option("greedy", "--strategy", help="greedy (the measure-revise loop) or map-elites "
                                                              "(a quality-diversity archive; docs/map-elites.md)."),
    islands: Optional[int] = typer.Option(None, "--islands", help="map-elites: separate archives (default 2)."),
    migrate_every: Optional[int] = typer.Option(None, "--migrate-every",
                                                help="map-elites: generations between migrations (default 3)."),
    rewrite_every: Optional[int] = typer.Option(None, "--rewrite-every",
                                                help="map-elites with --model: generations between meta-prompt "
                                                     "rewrites (default 3)."),
    parallel: int = typer.Option(1, "--parallel", min=1, max=16,
                                 help="The tuner proposes this many candidates at once and evaluates them "
                                      "side by side, sharing the GPU (timings never overlap); only the "
                                      "batch's fastest is compared with the incumbent."),
    profile: bool = typer.Option(True, "--profile/--no-profile",
                                 help="Profile each new incumbent with the platform's profiler (GPU)."),
    confirm: bool = typer.Option(True, "--confirm/--no-confirm",
                                 help="At the end, evaluate the best kernel once more with its baselines timed "
                                      "beside it, interleaved, at every shape (GPU); the report's figures."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document instead of tables."),
) -> None:
    """Optimize OP: exit 0 when the session ends with a correct, honest kernel, 1 when it found none
    (or its best failed the end-of-session evaluation), 3 when the model endpoint refuses the key or
    cannot be reached (the session is resumable)."""
    from aka.agent.state import LoopConfig
    from aka.cli.optimize_build import run
    from aka.sessions.run import OptimizeRequest

    with handled(json_out=json_out):
        if op is None and resume is None:
            raise typer.BadParameter("give OP, or --resume SESSION")
        if device not in ("auto", "cuda", "cpu"):
            raise typer.BadParameter(f"--device must be auto, cuda or cpu, not {device!r}")
        if kb not in ("auto", "chroma", "memory", "none"):
            raise typer.BadParameter(f"--kb must be auto, chroma, memory or none, not {kb!r}")
        if api_base and not model and not resume:
            raise typer.BadParameter("--api-base needs --model (the model the endpoint serves)")
        search = {k: v for k, v in (("islands", islands), ("migrate_every", migrate_every),
                                    ("rewrite_every", rewrite_every)) if v is not None}
        if search and strategy != "map-elites":
            raise typer.BadParameter(f"--{next(iter(search)).replace('_', '-')} goes with --strategy map-elites")
        if parallel > 1 and (model or strategy != "greedy"):
            raise typer.BadParameter("--parallel batches the embedded tuner's candidates in the greedy loop; "
                                     "the LLM proposer and map-elites propose one candidate at a time")
        config = LoopConfig(iterations=iterations or LoopConfig.iterations, time_limit_min=time_limit, target_sol=target_sol, stall=stall,
                            max_dropouts=max_dropouts, seed=seed, shapes=tuple(shape or ()),
                            max_cost_usd=max_cost, max_tokens=max_tokens, strategy=strategy, search=search,
                            parallel=parallel, confirm=confirm)
        req = OptimizeRequest(op=str(op) if op else "", config=config, sessions_dir=sessions_dir, resume=resume,
                              device=device, kb=kb, kb_dir=kb_dir, embedder=embedder, kernel_roots=tuple(kernels or ()), reps=reps,
                              timeout_s=eval_timeout, model=model, api_base=api_base, llm_timeout_s=llm_timeout,
                              progress=not json_out, iterations_given=iterations is not None)
        outcome = run(req, profile=profile)
    grid = _archive(outcome.session)
    if json_out:
        print_json({**outcome.summary, "ok": outcome.ok, "session": str(outcome.session.resolve()),
                    "best": outcome.best, "stop_reason": outcome.stop_reason, "iterations": outcome.iterations,
                    **({"llm": outcome.llm} if outcome.llm else {}), **({"archive": grid} if grid else {})})
    else:
        _render(outcome)
        if grid:
            top = grid["best"] or {}
            typer.echo(f"archive: {grid['cells']} cells on {len(grid['islands'])} islands, {grid['migrations']} "
                       f"migrations, {len(grid['prompts'])} prompt versions; best elite {top.get('version')} "
                       f"in {top.get('cell')} (aka replay SESSION --print shows the grid)")
    raise typer.Exit(0 if outcome.ok else 1)


def _archive(session: Path) -> dict | None:
    """A map-elites session's archive in brief (None for a greedy session)."""
    from aka.replay import archive
    from aka.replay.load import load

    a = archive.rebuild(load(session))
    if a is None:
        return None
    return {"cells": len(a.merged()), "islands": [len(c) for c in a.islands], "best": a.best(),
            "migrations": len(a.migrations), "prompts": [p["id"] for p in a.prompts]}


def _render(outcome) -> None:
    s = outcome.summary
    typer.echo(f"session {outcome.session}")
    typer.echo(f"stopped: {outcome.stop_reason}; {outcome.iterations} candidates evaluated")
    if outcome.llm:
        typer.echo(f"model calls: {outcome.llm['calls']} ({outcome.llm['tokens']} tokens, "
                   f"${outcome.llm['cost_usd']:.4f}, {outcome.llm['reused']} reused from the session)")
    if outcome.best is None:
        typer.echo("no correct and honest kernel was found")
        return
    typer.echo(f"best: {outcome.best} ({s.get('best_name')}) -> {outcome.session / 'best' / 'candidate.py'}")
    confirmed = s.get("confirmed") or {}
    if confirmed and confirmed.get("status") != "accepted":
        typer.echo(f"but its end-of-session evaluation was {confirmed.get('status')}: "
                   f"{'; '.join(confirmed.get('rejections') or []) or 'no reason given'} (exit 1)")
    if s.get("mode") == "cpu-interpreter":
        typer.echo("times are CPU-interpreter wall times: they rank candidates, they are not GPU performance")
    for r in s.get("shapes", []):
        speed = ", ".join(f"{k} {speedup_text(v, 'x')}" for k, v in r["speedup"].items())
        sol = f", SOL {r['sol']:.3f}" if r.get("sol") is not None else ""
        typer.echo(f"  {r['shape']}: {r['time_us']:.2f} us ({r['method']})"
                   + (f", {speed}" if speed else "") + sol)
    typer.echo(f"report: {outcome.session / 'report.md'}")
