"""The LLM proposer's prompt, built from records only, each part in its own capped section.

What may appear: the operator's public view (reference source, visible shapes with weights and
phases, dtype, tolerance), the incumbent's source and proposer view, the last candidate's exact
feedback, the profile summary, retrieved snippets with their sources, the unmasked memory. What
never appears: held-out shapes or their parameters, roofline expressions and figures, keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aka.propose.directive import directive_section
from aka.spec.memory import ProposalContext
from aka.spec.result import speedup_text

CAPS = {"reference": 6000, "incumbent": 12000, "feedback": 5000, "last_source": 12000, "profile": 3000,
        "snippet": 1500, "knowledge": 7000, "memory": 5000, "inspiration": 4000, "inspirations": 9000}
"""Characters per section (a longer text keeps its head and says how much was cut)."""

CONTRACT = """\
The candidate contract (docs/op-spec.md, docs/honesty.md):
- Reply with ONE complete Python file in a ```python fenced block. It defines `class ModelNew(torch.nn.Module)`
  with the reference Model's constructor and forward signature and the same parameter/buffer names (the
  harness loads the reference's state_dict into it strictly).
- The work must be done by Triton kernels the file itself defines (@triton.jit). Outside kernels only
  allocation (torch.empty...), views/reshape/shape arithmetic, .contiguous(), dtype casts and device queries.
- Imports allowed: torch, triton, triton.language, and from the standard library math, functools, typing,
  dataclasses, enum, collections, itertools, operator, numbers, abc, __future__, warnings. Nothing else.
- Refused (the rule id in brackets): torch computing outside kernels, e.g. torch.rsqrt, x * y on tensors,
  .sum(), .pow() [torch-compute, tensor-method-math, runtime-torch-compute]; `@` [matmul-operator];
  torch.compile/jit [torch-compile]; streams, events, CUDA graphs [stream]; patching modules
  [module-patching]; `global` [global-state]; eval/exec/globals/dunder attributes, private stdlib names,
  a module bound to a name (`F = torch.nn.functional`: write `import torch.nn.functional as F`) [introspection];
  threads/processes [concurrency]; ctypes/extensions [native-code]; open/os/time/json [io];
  numpy [host-compute]; calling kernel.fn [kernel-fn-call]; work done elsewhere than its own kernels
  [ghost-replay, no-kernel]; modifying inputs [input-modified]; returning an input [output-aliases-input];
  caching results between calls [stale-output].
- Correct on every shape, including held-out shapes you are not shown: handle any row count and any
  hidden size (masks, tails, strides); never special-case the listed shapes. Outputs are compared in
  float64 against the reference within the tolerance; NaN where the reference has none fails.
- Tunable constants: module-level `NAME = value` assignments (e.g. BLOCK_N = 1024). You may declare
  them in a module docstring with YAML front matter (`params: {BLOCK_N: {values: [...], default: ...}}`);
  `points: [{BLOCK_N: 2048}]` names the points the tuner should try first."""

ROLE = ("You are a GPU kernel engineer. You write faster, correct Triton kernels for one PyTorch operator, "
        "one candidate file per reply. The harness, not you, decides what is correct and what is faster; "
        "its feedback below is exact.")

SECTIONS = {
    "philosophy": """\
Optimization philosophy:
- Correct on every shape first; a fast wrong kernel is worth nothing.
- Find the limit before optimizing: most operators here are memory-bound, so the bytes moved are the budget.
  Read and write each byte once, keep intermediates in registers, fuse every step into one kernel.
- Change one idea at a time and say which bottleneck it addresses; the measurements decide.""",
    "strategies": """\
Strategies that pay off, roughly in order of reach:
- Memory: contiguous blocks along the fastest dimension; eviction hints (evict_first for data read once);
  operand tiles staged on chip (tl.dot); software pipelining (num_stages > 1) or TMA on sm90.
- Compute: fuse the passes into one kernel; read the input once (whole rows in registers, online softmax,
  Welford); use tl.dot tiles where the operator has a reduction that maps to a matrix product.
- Parallelism: one row per program for long rows; several rows per program for short rows; a persistent
  grid (programs = SMs x k, grid-stride loop) for many small tiles; split the reduction across programs
  (split-K / split-row) when there are too few rows to fill the GPU (decode shapes).
- Tune BLOCK sizes and num_warps to the row length; specialize by shape bucket when decode and prefill differ.""",
    "pitfalls": """\
Pitfalls:
- Masks on every load and store of a tail; the hidden size need not be a power of two or a multiple of the block.
- 32-bit offsets overflow past 2^31 elements: cast row indices to int64 for large tensors.
- A block far larger than the row wastes registers and spills; too few warps for a large block stalls.
- Accumulate in fp32 and cast at the store; subtract the row max before exp; never produce NaN from padding.""",
    "profile": """\
Reading the profile:
- DRAM traffic against the compulsory bytes: above 1.0x means re-reads (a second sweep, spills, poor reuse).
- Memory throughput near the peak with compulsory traffic: the kernel is at its limit; only fewer bytes help.
- Long-scoreboard / memory-dependency stalls with low throughput: too few bytes in flight; more rows or
  elements per program, larger blocks, pipelining.
- A kernel time near the launch floor (a few microseconds): launch-bound; fewer launches, one program
  handling more work, or a split across more programs for tiny decode shapes.""",
}
"""The system prompt's evolvable sections by name (meta-prompt evolution rewrites one at a time);
the role and the candidate contract around them never change."""


def system_prompt(sections: dict[str, str] | None = None) -> str:
    """The system message: the role, the named sections (the defaults or an evolved version), the
    candidate contract."""
    chosen = sections if sections is not None else SECTIONS
    body = [chosen[name].strip() for name in SECTIONS if chosen.get(name, "").strip()]
    return "\n\n".join([ROLE, *body, CONTRACT])


SYSTEM = system_prompt()


def cap(text: str, limit: int) -> str:
    text = text or ""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[... {len(text) - limit} more characters cut]"


def build_messages(ctx: ProposalContext, reference_source: str) -> list[dict[str, str]]:
    """[system, user] for a fresh proposal from the context."""
    parts = [operator_section(ctx, reference_source), incumbent_section(ctx), directive_section(ctx, CAPS),
             feedback_section(ctx), profile_section(ctx), knowledge_section(ctx), memory_section(ctx),
             task_section(ctx)]
    return [{"role": "system", "content": system_prompt(getattr(ctx, "system_sections", None))},
            {"role": "user", "content": "\n\n".join(p for p in parts if p)}]


def repair_message(ctx: ProposalContext) -> dict[str, str]:
    """The follow-up turn after a kernel that failed to compile or load."""
    rules = {r.get("rule") for r in (ctx.last_eval or {}).get("rejections", [])}
    if "no-model-new" in rules and ctx.last is not None and ctx.last.source.startswith("# aka:"):
        ask = "Your reply held no usable code. Reply with the complete file in one ```python block."
        body = "\n".join(f"- {r['message']}" for r in (ctx.last_eval or {}).get("rejections", []))
    else:
        ask = ("Your kernel did not compile or load. Fix this error and reply with the complete corrected "
               "file (same approach unless the error shows it cannot work).")
        body = feedback_body(ctx)
    return {"role": "user", "content": "\n\n".join(["## Repair", ask, body])}


def operator_section(ctx: ProposalContext, reference_source: str) -> str:
    op = ctx.op
    rows = []
    for title, key in (("Shapes (production; weights sum to the score)", "shapes"),
                       ("Shapes run here (CPU interpreter)", "cpu_shapes")):
        shapes = op.get(key) or []
        if key == "cpu_shapes" and (ctx.device.get("kind") == "cuda" or not shapes):
            continue
        rows.append(f"{title}:")
        rows += [f"- {s['id']}: {json.dumps(s['params'])}, weight {s.get('weight', 1.0)}, phase {s.get('phase', 'any')}"
                 for s in shapes]
    tol = op.get("tolerance")
    tol_text = f"atol {tol['atol']}, rtol {tol['rtol']}" if tol else "the dtype's default"
    device = ctx.device
    where = (f"{device.get('name', '')} ({device.get('vendor', '')} {device.get('arch', '')})"
             if device.get("kind") == "cuda" else "CPU, Triton interpreter (times only rank candidates)")
    return "\n".join([
        f"## Operator: {op['name']}",
        op.get("description", "").strip(),
        f"dtype {op.get('dtype')}; tolerance {tol_text}; backend {op.get('backend', 'triton')}; "
        f"in-place inputs: {', '.join(op.get('mutates') or []) or 'none'}; device: {where}",
        *rows,
        "Reference (the semantics to reproduce):",
        "```python", cap(reference_source, CAPS["reference"]).rstrip(), "```"])


def incumbent_section(ctx: ProposalContext) -> str:
    if ctx.incumbent is None:
        return "## Incumbent\nNone yet: the reference (eager PyTorch) is the baseline. Write a first correct kernel."
    directive = getattr(ctx, "directive", None)
    title = (f"## Parent (the elite to start from: {ctx.incumbent.name}, cell {directive.parent_cell})"
             if directive is not None and directive.parent else f"## Incumbent (the kernel to beat: {ctx.incumbent.name})")
    lines = [title, "```python",
             cap(ctx.incumbent.materialize(), CAPS["incumbent"]).rstrip(), "```"]
    if ctx.incumbent_eval:
        lines.append(shape_table(ctx.incumbent_eval))
    return "\n".join(lines)


def shape_table(view: dict[str, Any]) -> str:
    rows = [f"Evaluation ({view.get('mode')}, {view.get('dtype')}); held-out shapes: {view.get('held_out')}"]
    for s in view.get("shapes", []):
        time = f"{s['time_us']:.2f} us ({s['timing']})" if s.get("time_us") is not None else "not timed"
        speed = ", ".join(f"{k} {speedup_text(v, 'x')}" for k, v in (s.get("speedup") or {}).items())
        err = f", max abs err {s['max_abs_err']:.2e}" if s.get("max_abs_err") is not None else ""
        rows.append(f"- {s['id']}: correct {s.get('correct')}{err}; {time}" + (f"; speedup {speed}" if speed else ""))
    return "\n".join(rows)


def feedback_section(ctx: ProposalContext) -> str:
    if ctx.last is None or ctx.last_eval is None:
        return ""
    if not any(m.candidate == ctx.last.hash for m in ctx.memory if not m.masked):
        return ""                                  # its record was masked by a dropout: not shown again
    if ctx.incumbent is not None and ctx.last.hash == ctx.incumbent.hash:
        return f"## Last candidate\n{ctx.last.name} was promoted: {ctx.last_decision}"
    return "## Last candidate's feedback\n" + feedback_body(ctx)


def feedback_body(ctx: ProposalContext) -> str:
    view = ctx.last_eval or {}
    lines = [f"{ctx.last.name}: status {view.get('status')}" + (f"; decision: {ctx.last_decision}"
                                                                 if ctx.last_decision else "")]
    for r in view.get("rejections", []):
        at = f" (line {r['line']})" if r.get("line") else ""
        shape = f" at {r['shape']}" if r.get("shape") else ""
        lines.append(f"- rule {r['rule']}{shape}{at}: {r['message']}")
    failing = [s for s in view.get("shapes", []) if s.get("correct") is False and s.get("detail")]
    lines += [f"- {s['id']}: {s['detail']}" for s in failing]
    if view.get("status") == "accepted":
        lines.append(shape_table(view))
    elif view.get("log"):
        lines += ["Log tail:", view["log"].strip()]
    if view.get("status") != "accepted" and ctx.last.source.strip() and not ctx.last.source.startswith("# aka:"):
        lines += ["Its source:", "```python", cap(ctx.last.materialize(), CAPS["last_source"]).rstrip(), "```"]
    return cap("\n".join(lines), CAPS["feedback"] + CAPS["last_source"])


def profile_section(ctx: ProposalContext) -> str:
    if not ctx.profile_summary:
        return ""
    return "## Profile of the incumbent\n" + cap(ctx.profile_summary, CAPS["profile"])


def knowledge_section(ctx: ProposalContext) -> str:
    if not ctx.knowledge:
        return ""
    out, used = ["## Retrieved knowledge (cite what you use)"], 0
    for s in ctx.knowledge:
        block = f"### {s.title or s.source} [{s.layer}] source: {s.source}\n{cap(s.text, CAPS['snippet'])}"
        if used + len(block) > CAPS["knowledge"]:
            out.append(f"[{len(ctx.knowledge) - len(out) + 1} more snippets left out]")
            break
        out.append(block)
        used += len(block)
    return "\n".join(out)


def memory_section(ctx: ProposalContext) -> str:
    records = [m for m in ctx.memory if not m.masked]
    if not records:
        return ""
    good = [m for m in records if m.kind != "anti-strategy"]
    bad = [m for m in records if m.kind == "anti-strategy"]
    lines = ["## Memory of this search"]
    lines += [f"- [{m.id} {m.verdict}] {m.change}: {m.lesson}" for m in good]
    if bad:
        lines.append("Anti-strategies (tried and failed; do not repeat them):")
        lines += [f"- [{m.id} {m.verdict}] {m.change}: {m.lesson}" for m in bad]
    return cap("\n".join(lines), CAPS["memory"])


def task_section(ctx: ProposalContext) -> str:
    lines = ["## Task"]
    avoid = [f for f in ctx.avoid_families if f != "llm" and not f.startswith("llm-")]
    if ctx.dropouts:
        lines.append(f"Fresh start #{ctx.dropouts}: the last attempts brought no improvement. Try a clearly "
                     "different strategy from the memory above"
                     + (f" (move away from {', '.join(avoid)})" if avoid else "") + ".")
    asked = ("what the search directive above asks" if getattr(ctx, "directive", None) is not None
             else "a faster kernel than the incumbent" if ctx.incumbent else "a correct Triton kernel for the operator")
    lines.append("Write the next candidate: " + asked
                 + ". First say in one or two sentences what you change and why it should be faster "
                   "(name the bottleneck it addresses), then give the complete file in one ```python block.")
    return "\n".join(lines)


def read_reference(op: dict[str, Any]) -> str:
    try:
        return Path(op["reference"]).read_text(encoding="utf-8")
    except (OSError, KeyError):
        return "(reference source unavailable)"
