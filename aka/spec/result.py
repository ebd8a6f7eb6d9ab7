"""What an evaluation says about a candidate: status, rejections, per-shape checks and timings.

Kernel failures are data: a wrong answer, a cheat, a crash or a timeout is an `EvalStatus` with
its reasons, never an exception.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any

FORMAT = "aka.eval/1"
"""Format tag of an EvalResult's JSON; `from_dict` refuses other formats."""
LOG_VIEW_CHARS = 2000
"""How much of a log the proposer view keeps (its tail)."""


def known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """The keys of `data` that are fields of the dataclass `cls`: every record reads its JSON
    through this, so keys written by a newer aka are ignored the same way everywhere."""
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def speedup_text(x: float | None, suffix: str = "×", none: str = "n/a") -> str:
    """A speedup for people and models to read: two decimals, except that a loss two decimals would
    round up to the bar (0.9985 as "1.00") gets three or four, cut rather than rounded ("0.998",
    "0.9999"), so a table never shows a miss as a match."""
    if x is None:
        return none
    if not x < 1.0 <= round(x, 2):
        return f"{x:.2f}{suffix}"
    digits = 4 if math.floor(x * 1000) == 999 else 3
    return f"{math.floor(x * 10 ** digits) / 10 ** digits:.{digits}f}{suffix}"


class EvalStatus(str, Enum):
    """The verdict on one candidate."""

    ACCEPTED = "accepted"          # correct and honest on every shape, held-out shapes included
    WRONG = "wrong"                # ran, but an output (or a mutated input) is wrong somewhere
    CHEAT = "cheat"                # an honesty rule rejected it (static review or runtime proof)
    ERROR = "error"                # raised, failed to compile or to load
    TIMEOUT = "timeout"            # killed after the time limit
    CRASH = "crash"                # the worker died (segfault, illegal memory access, ...)

    @property
    def accepted(self) -> bool:
        return self is EvalStatus.ACCEPTED


@dataclass(frozen=True)
class Rejection:
    """One broken rule: which rule, where, and what was seen."""

    rule: str
    """Rule id, e.g. 'torch-compute', 'ghost-replay', 'input-modified' (docs/honesty.md lists them)."""
    message: str
    file: str = ""
    line: int | None = None
    shape: str = ""
    """Shape id where a runtime rule fired; empty for static rules."""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        at = f" [shape {self.shape}]" if self.shape else ""
        return f"{self.rule}: {where + ': ' if where else ''}{self.message}{at}"


@dataclass
class Timing:
    """Robust statistics of repeated timings, in microseconds."""

    median_us: float
    iqr_us: float
    cv: float
    """Coefficient of variation (stdev / mean)."""
    reps: int
    method: str
    """'events' (CUDA events, L2 flushed), 'graph' (CUDA-graph replay) or 'cpu-interpreter'."""
    min_us: float = 0.0
    note: str = ""
    """Anything unusual about how this was measured (e.g. a graph capture that failed)."""
    tick_us: float = 0.0
    """The step of the grid the samples sit on, when the clock that took them has one (CUPTI's
    device spans on the H200 step by 0.25 µs): `median_us` is then the median for grouped data,
    interpolated within the step. 0.0: no grid, the plain median."""


@dataclass
class Roofline:
    """Where one shape's time stands against the hardware floor."""

    flops: dict[str, float]
    bytes: float
    t_roof_us: float
    sol: float | None = None
    """T_roof / T against the datasheet peaks."""
    sol_calibrated: float | None = None
    """The same against the measured (achievable) ceilings, when calibrated."""
    sol_launch_adjusted: float | None = None
    """(T_roof + empty-kernel graph time) / T."""
    flag: str = ""
    """Set when S > 1: the roofline undercounts bytes or FLOPs; S is then not a result."""
    basis: str = "roofline"
    """'roofline' (the operator's FLOPs and bytes) or 'bytes-only' (no roofline given: the memory
    bound of its inputs, parameters and outputs, each moved once; compute is not counted)."""


@dataclass
class ShapeResult:
    """One shape's correctness checks, timings and roofline."""

    id: str
    params: dict[str, Any]
    held_out: bool = False
    correct: bool | None = None
    """None: not checked (an earlier failure stopped the run)."""
    max_abs_err: float | None = None
    max_rel_err: float | None = None
    trials: int = 0
    detail: str = ""
    time: Timing | None = None
    baselines: dict[str, Timing] = field(default_factory=dict)
    speedup: dict[str, float] = field(default_factory=dict)
    """Baseline time / candidate time, per baseline."""
    roofline: Roofline | None = None
    own_time_share: float | None = None
    """Share of device time in the candidate's own kernels (GPU runtime proof)."""
    input_shapes: list[list[int]] = field(default_factory=list)
    """Shapes of the tensor inputs in call order (what a per-shape dispatcher keys on)."""


@dataclass
class EvalResult:
    """Everything one evaluation of one candidate found."""

    status: EvalStatus
    op: str
    candidate: str
    candidate_sha256: str
    mode: str
    """'gpu' or 'cpu-interpreter' (times then are not GPU performance; roofline n/a)."""
    dtype: str
    """The dtype actually run (bf16 operators run as float32 on the interpreter)."""
    rejections: list[Rejection] = field(default_factory=list)
    shapes: list[ShapeResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    device: dict[str, Any] = field(default_factory=dict)
    log: str = ""
    """Tail of the worker's stderr for this candidate."""
    wall_s: float = 0.0
    focus: list[str] = field(default_factory=list)
    """A focused trial's shape ids (`Proposal.focus`): only those were checked and timed, no
    held-out shape was, so the result never makes a candidate the incumbent. Empty: every shape."""
    phases_s: dict[str, float] = field(default_factory=dict)
    """Where the evaluation's time went, from the judge's clock: each command's round trip to the
    candidate's process (`load`, `build`, `call-first` (compiles its kernels), `call`, `time`,
    `batch`, ...) and the judge's own steps (`judge-spawn`, `judge-reference`, `judge-handover`,
    `judge-baselines`, ...); disjoint, so their sum is about `wall_s` less the worker's overhead."""

    def __post_init__(self) -> None:
        if self.status is EvalStatus.ACCEPTED and self.rejections:
            raise ValueError("an accepted result cannot carry rejections")
        if self.status is not EvalStatus.ACCEPTED and not self.rejections:
            raise ValueError(f"a {self.status.value} result must say why (rejections)")

    @property
    def accepted(self) -> bool:
        return self.status.accepted

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        return {"format": FORMAT, **data}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EvalResult":
        fmt = data.get("format", FORMAT)
        if fmt != FORMAT:
            raise ValueError(f"evaluation record format {fmt!r}, expected {FORMAT!r}")
        d = known(cls, data)
        d["status"] = EvalStatus(d["status"])
        d["rejections"] = [Rejection(**known(Rejection, r)) for r in d.get("rejections", [])]
        d["shapes"] = [_shape_from_dict(s) for s in d.get("shapes", [])]
        return cls(**d)

    def proposer_view(self) -> dict[str, Any]:
        """What a proposer may see: no held-out shapes, no held-out ids in rejections, no
        roofline internals, and only the tail of the log (mirrors `OpSpec.public_view`)."""
        held = {s.id for s in self.shapes if s.held_out}
        scrub = held_out_scrubber(self.shapes)
        rejections = []
        for r in self.rejections:
            rejections.append({"rule": r.rule, "message": scrub(r.message)[-LOG_VIEW_CHARS:], "line": r.line,
                               "shape": "<held-out shape>" if r.shape in held else r.shape})
        shapes = []
        for s in self.shapes:
            if s.held_out:
                continue
            row = {"id": s.id, "params": s.params, "input_shapes": s.input_shapes,
                   "correct": s.correct, "max_abs_err": s.max_abs_err,
                   "detail": s.detail[-LOG_VIEW_CHARS:],
                   "time_us": s.time.median_us if s.time else None,
                   "timing": s.time.method if s.time else None, "speedup": dict(s.speedup)}
            shapes.append(row)
        return {"status": self.status.value, "mode": self.mode, "dtype": self.dtype,
                "rejections": rejections, "shapes": shapes, **({"focus": list(self.focus)} if self.focus else {}),
                "held_out": _held_out_summary([s.correct for s in self.shapes if s.held_out]),
                "log": scrub(self.log[-LOG_VIEW_CHARS:])}


def held_out_scrubber(shapes: list["ShapeResult"]):
    """A function that removes held-out shapes from a text a proposer will read (a rejection
    message, a log): their ids become `<held-out shape>`, and every number of two or more digits
    that is one of their parameter values, input dimensions or input sizes (and no visible shape's)
    becomes `<held-out>`; a traceback's `line N` is left alone. Single digits are not scrubbed."""
    import re

    held = [s for s in shapes if s.held_out]
    if not held:
        return lambda text: text
    visible = _numbers([s for s in shapes if not s.held_out])
    secret = {n for n in _numbers(held) - visible if n >= 10}
    ids = sorted((s.id for s in held), key=len, reverse=True)
    number = re.compile(r"(?<![\w.])(?<!line )(\d{2,})(?!\w|\.\d)")

    def scrub(text: str) -> str:
        for hid in ids:
            text = text.replace(hid, "<held-out shape>")
        return number.sub(lambda m: "<held-out>" if int(m.group(1)) in secret else m.group(1), text or "")
    return scrub


def _numbers(shapes: list["ShapeResult"]) -> set[int]:
    """Parameter values, input dimensions and input sizes (element counts) of shapes."""
    out: set[int] = set()
    for s in shapes:
        out |= {int(v) for v in s.params.values() if isinstance(v, (int, float)) and float(v).is_integer()}
        for dims in s.input_shapes or []:
            out |= {int(d) for d in dims}
            size = 1
            for d in dims:
                size *= int(d)
            out.add(size)
    return out


def _held_out_summary(correct: list[bool | None]) -> str:
    """One word on the held-out shapes a proposer may know: whether they passed, never which."""
    if not correct:
        return "none"
    if any(c is False for c in correct):
        return "failed"
    return "passed" if all(correct) else "not reached"


def _shape_from_dict(s: dict[str, Any]) -> ShapeResult:
    s = known(ShapeResult, s)
    if s.get("time"):
        s["time"] = Timing(**known(Timing, s["time"]))
    s["baselines"] = {k: Timing(**known(Timing, v)) for k, v in (s.get("baselines") or {}).items()}
    if s.get("roofline"):
        s["roofline"] = Roofline(**known(Roofline, s["roofline"]))
    return ShapeResult(**s)


@dataclass
class Comparison:
    """An interleaved incumbent-candidate-candidate-incumbent timing comparison."""

    incumbent_us: float
    candidate_us: float
    speedup: float
    """incumbent / candidate (> 1: the candidate is faster)."""
    noise: float
    """Relative noise threshold measured from the repeated rounds."""
    rounds: int
    significant: bool
    """True when the candidate is faster by more than the noise."""
    method: str
    shape: str = ""
    """The shape id this comparison timed."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Comparison":
        return cls(**known(cls, data))


@dataclass
class Decision:
    """The loop's verdict on a candidate that passed the harness: does it replace the incumbent?

    The harness says a candidate is *accepted* (correct and honest); the loop *promotes* an
    accepted candidate to incumbent only when the interleaved comparison shows it faster by more
    than the noise, weighted over the operator's shapes.
    """

    promote: bool
    reason: str
    """One line: why (e.g. '1.12x weighted, noise 0.03', 'within noise', 'crashed while timed')."""
    speedup: float | None = None
    """Weighted geometric mean over shapes of incumbent time / candidate time."""
    noise: float | None = None
    """Weighted mean of the per-shape relative noise thresholds."""
    comparisons: list[Comparison] = field(default_factory=list)
    failure: Rejection | None = None
    """Set when the candidate crashed, hung or raised during the comparison (its failure, as data)."""
    phases_s: dict[str, float] = field(default_factory=dict)
    """Where the comparison's time went: each side's command round trips ('incumbent:bench', ...)
    and 'judge-total'; empty for a decision that took no comparison."""
    progress: bool = False
    """Not promoted, yet the search moved: a focused trial set the best time so far at its shape
    (what a dispatcher picks up next), so it does not count toward the stall."""
    new_bests: list[str] = field(default_factory=list)
    """The shape ids where a focused trial set the best time so far (all of them when `progress`;
    a screen over several shapes may win some and lose the rest)."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Decision":
        d = known(cls, data)
        d["comparisons"] = [Comparison.from_dict(c) for c in d.get("comparisons", [])]
        d["failure"] = Rejection(**known(Rejection, d["failure"])) if d.get("failure") else None
        return cls(**d)
