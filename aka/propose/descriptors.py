"""Behavioural descriptors of a kernel, computed by code from its source: where a candidate sits in
the quality-diversity archive (docs/map-elites.md lists every level and how it is detected).

Three axes are read from the Triton source by an AST walk (nothing is run); a file takes, on each
axis, the most advanced level any of its kernels reaches:

- memory: 0 plain (blocks of contiguous offsets, gathers; Triton coalesces these by itself) -> 1
  vectorized/cache-steered (eviction or cache-modifier hints, tl.multiple_of/max_contiguous) -> 2
  on-chip tiling (operand tiles through shared memory: tl.dot, tl.trans/permute, block pointers) ->
  3 pipelined/async (num_stages above 1, TMA descriptors, the next tile's load issued before the
  current tile is used).
- compute: 0 multi-pass (several kernels passing intermediates through global memory) -> 1 fused
  (one kernel sweeping its input more than once) -> 2 single-pass/online (every input element read
  once) -> 3 tensor-core tiles (tl.dot).
- parallel: 0 one row/tile per program -> 1 several per program (a tile of rows/tokens named as
  such, or a loop over work units) -> 2 persistent or split (a grid-stride loop, an SM-sized grid, a
  reduction split across programs and combined by atomics or a second kernel) -> 3 warp-specialized.

`declared(techniques)` gives the same levels from a reference kernel's front matter (the table
`TECHNIQUES`); the tests hold the two to each other on every shipped kernel.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from aka.propose.source_walk import (UNIT_NAME, Host, Kernel, Launch, Walk, constants, exclusive, inline_helpers,
                                     is_jit)

MEMORY = ("plain", "vectorized", "on-chip-tiled", "pipelined")
COMPUTE = ("multi-pass", "fused", "single-pass", "tensor-core")
PARALLEL = ("one-per-program", "several-per-program", "persistent-split", "warp-specialized")
AXES = {"memory": MEMORY, "compute": COMPUTE, "parallel": PARALLEL}



@dataclass(frozen=True)
class Descriptor:
    """A kernel's levels on the three code axes, with the evidence for each level."""

    memory: int
    compute: int
    parallel: int
    evidence: dict[str, str] = field(default_factory=dict, compare=False)
    """Axis -> what in the source set its level."""

    @property
    def levels(self) -> tuple[int, int, int]:
        return self.memory, self.compute, self.parallel

    def names(self) -> dict[str, str]:
        return {"memory": MEMORY[self.memory], "compute": COMPUTE[self.compute], "parallel": PARALLEL[self.parallel]}


# --- levels -------------------------------------------------------------------------------------
def describe(source: str, params: dict[str, object] | None = None) -> Descriptor:
    """The descriptor of a kernel file's source with `params` applied to its constants (a file that
    does not parse is level 0 on memory and parallel, single-pass on compute). Cached: a source's
    levels depend only on the few constants the walk looks up (num_stages, row-tile sizes)."""
    import hashlib

    digest = hashlib.sha256(source.encode()).hexdigest()
    used, known = _CACHE.get(digest, (None, {}))
    if used is not None:
        hit = known.get(tuple((k, (params or {}).get(k, _UNSET)) for k in used))
        if hit is not None:
            return hit
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return Descriptor(0, 2, 0, {"memory": "not valid Python", "compute": "not valid Python",
                                    "parallel": "not valid Python"})
    consts = _Recording({**constants(tree), **(params or {})})
    found = _levels(tree, consts)
    used = tuple(sorted(consts.used))
    if len(_CACHE) > 256:
        _CACHE.clear()
    entry = _CACHE.setdefault(digest, (used, {}))
    entry[1][tuple((k, (params or {}).get(k, _UNSET)) for k in entry[0])] = found
    return found


class _Recording(dict):
    """Constants that remember which names were looked up."""

    def __init__(self, *args):
        super().__init__(*args)
        self.used: set[str] = set()

    def get(self, key, default=None):
        self.used.add(key)
        return super().get(key, default)

    def __getitem__(self, key):
        self.used.add(key)
        return super().__getitem__(key)


_CACHE: dict[str, tuple[tuple[str, ...], dict[tuple, Descriptor]]] = {}
_UNSET = object()


def _levels(tree: ast.Module, consts: dict[str, object]) -> Descriptor:
    kernels = {fn.name: Walk(fn, consts).k for fn in ast.walk(tree) if is_jit(fn)}
    inline_helpers(kernels)                              # helpers' loads and stores, on the callers' arguments
    for k in kernels.values():                           # and their other findings
        for h in k.helpers & set(kernels):
            k.facts |= {f for f in kernels[h].facts}
    host = Host(tree, kernels, consts)
    launched = [kernels[la.kernel] for la in host.launches] or list(kernels.values())
    facts = set().union(*(k.facts for k in launched)) if launched else set()
    facts |= host.facts
    staged = any((la.stages or 0) > 1 and any(ld.loop is not None for ld in kernels[la.kernel].loads)
                 for la in host.launches)
    memory, m_why = _memory(facts, staged)
    compute, c_why = _compute(facts, host.launches, kernels)
    parallel, p_why = _parallel(facts, host.launches, kernels)
    return Descriptor(memory, compute, parallel, {"memory": m_why, "compute": c_why, "parallel": p_why})


def _memory(facts: set[str], staged: bool) -> tuple[int, str]:
    if "tma" in facts:
        return 3, "TMA tensor descriptors"
    if "num_stages" in facts or staged:
        return 3, "software pipelining (num_stages > 1)"
    if "prefetch" in facts:
        return 3, "the next tile's load is issued before the current tile is used"
    for fact, why in (("dot", "tl.dot operand tiles (staged in shared memory)"),
                      ("trans", "tile transposed on chip (tl.trans/permute)"),
                      ("block-ptr", "block pointers (tl.make_block_ptr)")):
        if fact in facts:
            return 2, why
    if "hint" in facts:
        return 1, "cache/eviction or contiguity hints"
    return 0, "plain pointer offsets"


def _compute(facts: set[str], launches: list[Launch], kernels: dict[str, Kernel]) -> tuple[int, str]:
    if "dot" in facts:
        return 3, "tl.dot tiles"
    chain = _chain(launches, kernels)
    if chain:
        return 0, chain
    working = [la for la in launches if any(ld.vector for ld in kernels[la.kernel].loads)]
    together = [(a, b) for i, a in enumerate(working) for b in working[i + 1:] if not exclusive(a, b)]
    if together:
        a, b = together[0]
        return 0, f"{a.kernel} and {b.kernel} both run, one after the other"
    runs = [kernels[la.kernel] for la in launches] or list(kernels.values())
    sweeps = [_sweeps(k) for k in runs]
    if runs and all(sweeps):
        return 1, sweeps[0]
    return 2, "each input element is read once"


def _chain(launches: list[Launch], kernels: dict[str, Kernel]) -> str:
    """'A writes X, B reads it' between two launches that can both run ('' when none)."""
    for i, a in enumerate(launches):
        ka = kernels[a.kernel]
        if not any(ld.vector for ld in ka.loads):          # an init kernel (fills, reads nothing)
            continue
        out = {a.args[j] for j, p in enumerate(ka.params[: len(a.args)]) if p in ka.writes and a.args[j]}
        for b in launches[i + 1:]:
            kb = kernels[b.kernel]
            read = {b.args[j] for j, p in enumerate(kb.params[: len(b.args)])
                    if b.args[j] and any(ld.base == p for ld in kb.loads)}
            if out & read and not exclusive(a, b):
                return f"{a.kernel} writes {sorted(out & read)[0]}, {b.kernel} reads it"
    return ""


def _sweeps(k: Kernel) -> str:
    """A parameter vector-loaded in two different places (two sweeps of it), or a vector load of
    what the kernel itself wrote (its intermediate, read back in a later sweep)."""
    if "prefetch" in k.facts:
        return ""
    seen: dict[str, set] = {}
    for ld in k.loads:
        if ld.vector and ld.base:
            seen.setdefault(ld.base, set()).add(ld.loop)
    multi = sorted(b for b, loops in seen.items() if len(loops) > 1)
    if multi:
        return f"{k.name} sweeps {multi[0]} more than once"
    back = sorted(b for b in seen if b in k.writes)
    return f"{k.name} reads back {back[0]}, which it wrote" if back else ""


def _parallel(facts: set[str], launches: list[Launch], kernels: dict[str, Kernel]) -> tuple[int, str]:
    if "warp_specialize" in facts:
        return 3, "warp specialization (tl.range(..., warp_specialize=...))"
    if "grid-stride" in facts:
        return 2, "persistent: a grid-stride loop over the work"
    if "sm-grid" in facts:
        return 2, "persistent: the grid is sized from the SM count"
    for k in (kernels[la.kernel] for la in launches):
        if "atomic" in k.facts and "reduce" in k.facts:
            return 2, f"split: {k.name} combines partial reductions with atomics"
    split = _split(launches, kernels)
    if split:
        return 2, split
    if "unit-loop" in facts:
        return 1, "a loop over work units inside each program"
    for la in launches or [Launch(k, [], None, ()) for k in kernels]:
        k = kernels[la.kernel]
        for fact in sorted(f for f in k.facts if f.startswith("rows:")):
            size = fact[5:]
            if la.values.get(size) == 1:
                continue                                   # a tile of one row
            if "row-reduce" in k.facts or UNIT_NAME.match(size):
                return 1, f"a tile of {size} rows per program"
    return 0, "one row or tile per program"


def _split(launches: list[Launch], kernels: dict[str, Kernel]) -> str:
    """A reducing kernel whose partial results a later kernel reads (a two-kernel split)."""
    for i, a in enumerate(launches):
        ka = kernels[a.kernel]
        if "reduce" not in ka.facts and "dot" not in ka.facts:
            continue
        out = {a.args[j] for j, p in enumerate(ka.params[: len(a.args)]) if p in ka.writes and a.args[j]}
        for b in launches[i + 1:]:
            kb = kernels[b.kernel]
            read = {b.args[j] for j, p in enumerate(kb.params[: len(b.args)])
                    if b.args[j] and any(ld.base == p for ld in kb.loads)}
            if out & read and not exclusive(a, b):
                return f"split: {a.kernel}'s partial results are combined by {b.kernel}"
    return ""


# --- the front matter's view --------------------------------------------------------------------
TECHNIQUES: dict[str, tuple[str, int]] = {}
"""'axis:technique' (front matter vocabulary) -> (axis, level) it declares; unlisted ones say nothing."""


def _declare(axis: str, level: int, *names: str) -> None:
    for n in names:
        TECHNIQUES[f"{axis}:{n}"] = (axis, level)


def declared(techniques: tuple[str, ...] | list[str], strategy: str = "") -> tuple[int, int, int]:
    """The levels a reference kernel's front matter declares (its techniques, and the words of its
    strategy listed in `STRATEGY_WORDS`): memory and parallel take the most advanced level named;
    compute is tensor-core if named, else multi-pass, else fused, else single-pass."""
    got: dict[str, list[int]] = {"memory": [], "compute": [], "parallel": []}
    words = [f"strategy:{w}" for w in STRATEGY_WORDS if w in strategy]
    for t in list(techniques) + words:
        for axis in got:
            hit = TECHNIQUES.get(f"{axis}:{t}")
            if hit:
                got[axis].append(hit[1])
    c = got["compute"]
    compute = 3 if 3 in c else 0 if 0 in c else 1 if 1 in c else 2
    return max(got["memory"], default=0), compute, max(got["parallel"], default=0)


STRATEGY_WORDS = ("two-kernels", "three-phase", "unfused", "two-pass", "three-pass", "two-sweep", "three-sweep",
                  "partial", "persistent", "split-row", "split-k", "split-spatial")
"""Words of a front matter `strategy:` that declare a level (e.g. 'split-row-two-kernels')."""

_declare("memory", 3, "software-pipelining", "tma", "tensor-descriptors", "register-double-buffer", "wgmma")
_declare("memory", 2, "tiling", "tensor-cores", "block-pointers", "layout-conversion-through-shared-memory",
         "ieee-fp32-dot", "fp8-tensor-cores", "implicit-gemm", "flash-attention", "grouped-gemm")
_declare("memory", 1, "eviction-hints", "contiguity-hints")
_declare("compute", 3, "tensor-cores", "ieee-fp32-dot", "fp8-tensor-cores", "wgmma", "implicit-gemm",
         "flash-attention", "grouped-gemm")
_declare("compute", 0, "two-kernel", "three-kernel", "two-kernel-tree", "two-kernel-reduction", "unfused-baseline",
         "no-fusion", "intermediate-buffer", "intermediate-buffers", "reduce-then-scan")
_declare("compute", 0, "two-kernel-reduction", "strategy:two-kernels", "strategy:three-phase", "strategy:unfused")
_declare("compute", 1, "two-pass", "two-pass-softmax", "two-pass-variance", "l2-reuse", "cache-reuse",
         "all-pairs-compare", "bitwise-bisection", "radix-select", "last-arriver-merge", "strategy:two-pass",
         "strategy:three-pass", "strategy:two-sweep", "strategy:three-sweep")
_declare("parallel", 3, "warp-specialization")
_declare("parallel", 2, "persistent-grid", "persistent-kernel", "grid-stride-loop", "split-k", "split-reduction",
         "split-row", "stream-k", "flash-decoding", "reduce-then-scan", "two-kernel-tree", "single-pass-scan",
         "two-kernel-reduction", "partial-results-workspace", "privatization", "load-balance", "work-balancing",
         "strategy:partial", "strategy:persistent", "strategy:split-row", "strategy:split-k",
         "strategy:split-spatial")
_declare("parallel", 1, "multi-row-per-program", "multi-row-tile", "multi-token-per-program",
         "multiple-blocks-per-program", "multiple-tiles-per-program", "row-block")


def reach(source: str, space: dict[str, tuple] | None = None) -> Descriptor:
    """The most advanced level on each axis over a kernel family's parameter space (each
    parameter varied from the defaults one at a time): what the family can be."""
    space = space or {}
    defaults = {k: v[0] for k, v in space.items()}
    points = [dict(defaults)] + [{**defaults, k: v} for k, vals in space.items() for v in vals]
    seen = [describe(source, p) for p in points]
    best = [max(seen, key=lambda d, i=i: d.levels[i]) for i in range(3)]
    return Descriptor(best[0].memory, best[1].compute, best[2].parallel,
                      {"memory": best[0].evidence["memory"], "compute": best[1].evidence["compute"],
                       "parallel": best[2].evidence["parallel"]})


# --- the bottleneck class and the tuner's parameter regions --------------------------------------
LAUNCH_SHARE = 0.5
"""On a GPU without a profile: launch-bound when the launch floor is at least this share of the time."""
NEAR_ROOF = 0.6
"""... memory- or compute-bound when the time is within this share of the roofline, else latency-bound."""


def bottleneck_class(profile: dict | None, result, interpreter: bool, weights: dict[str, float]) -> tuple[str, str]:
    """(class, why) of a kernel: its profile's bottleneck when it was profiled; on a GPU without a
    profile, one derived from the evaluation's roofline figures at the shape where it spends the
    most weighted time; 'unprofiled' on the CPU interpreter."""
    kind = ((profile or {}).get("bottleneck") or {}).get("kind")
    if kind:
        return kind, "from the profile"
    if interpreter or result is None:
        return "unprofiled", "the CPU interpreter has no profiler and no roofline"
    timed = [s for s in result.shapes if not s.held_out and s.time and s.roofline and s.roofline.sol]
    if not timed:
        return "unknown", "no roofline figures"
    s = max(timed, key=lambda x: weights.get(x.id, 1.0) * x.time.median_us)
    roof = s.roofline
    floor = (roof.sol_launch_adjusted - roof.sol) if roof.sol_launch_adjusted is not None else 0.0
    if floor >= LAUNCH_SHARE:
        return "launch-bound", f"{s.id}: the launch floor is {floor:.0%} of the time"
    side = "memory" if roof.basis == "bytes-only" or _bytes_side(roof, result.device or {}) else "compute"
    if roof.sol >= NEAR_ROOF:
        return f"{side}-bound", f"{s.id}: {roof.sol:.2f} of the {side} roofline"
    return "latency-bound", f"{s.id}: {roof.sol:.2f} of the roofline, neither unit near its limit"


def _bytes_side(roof, device: dict) -> bool:
    """Whether the roofline's time is set by the bytes (the operator is memory-bound by design)."""
    from aka.hardware.devices import lookup

    spec = lookup(str(device.get("name", ""))) if device.get("name") else None
    if spec is None or not any(spec.flops.get(d) for d in roof.flops):
        flops = sum(roof.flops.values())
        return roof.bytes > 0 and flops / roof.bytes < 100.0          # below any GPU's ridge point
    t_bytes = roof.bytes / spec.bandwidth
    t_flops = sum(n / spec.flops[d] for d, n in roof.flops.items() if spec.flops.get(d))
    return t_bytes >= t_flops


def front_matter_space(source: str) -> dict[str, tuple]:
    """A kernel file's declared parameter space ({name: values}) read from its source ({} when it
    declares none or the front matter does not parse)."""
    import yaml

    try:
        doc = ast.get_docstring(ast.parse(source), clean=False) or ""
    except SyntaxError:
        return {}
    body = doc.lstrip()
    if not body.startswith("---") or "\n---" not in body[3:]:
        return {}
    try:
        data = yaml.safe_load(body[3: 3 + body[3:].index("\n---")]) or {}
    except yaml.YAMLError:
        return {}
    params = data.get("params") if isinstance(data, dict) else None
    out = {}
    for name, spec in (params or {}).items():
        if isinstance(spec, dict) and isinstance(spec.get("values"), list):
            out[str(name)] = tuple(spec["values"])
    return out


REGIONS = ("lo", "mid", "hi")


def region(space: dict[str, tuple], params: dict[str, object]) -> str:
    """The parameter region of a point: the mean position of its values in their declared lists
    (0 first, 1 last) in thirds: 'lo', 'mid' or 'hi'; 'lo' for a family with nothing to tune."""
    spots = [space[k].index(v) / (len(space[k]) - 1) for k, v in params.items()
             if k in space and len(space[k]) > 1 and v in space[k]]
    if not spots:
        return "lo"
    mean = sum(spots) / len(spots)
    return REGIONS[min(2, int(mean * 3))]
