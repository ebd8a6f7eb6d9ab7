"""What the judge sends its worker, and what comes back: typed jobs and replies, plain JSON.

The parent (`aka.evaluate.evaluator`) builds a job, `to_dict` turns it into one JSON line for the
fork server, and the server's trusted side reads it back with `job_from_dict`; replies travel the
other way as `Reply`. Every default lives here, once. Standard library only: the worker runs on a
bare GPU node with torch, triton, numpy and pyyaml.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Union

JOB_FORMAT = "aka.job/1"
"""Format tag of jobs and replies; both sides refuse another (the parent starts its own server)."""


@dataclass(frozen=True)
class CandidateSource:
    """A candidate as the worker gets it: its text, never a path. The trusted side writes it as
    `candidate.py` in the candidate's job folder; `name` is what rejections show instead."""

    name: str
    """Display name (the caller's file or the candidate record's name)."""
    source: str
    shipped: bool = False
    """Code aka ships (the tuner's reference kernels, its dispatchers): its process shares the
    session's compiled-kernel cache (`aka.evaluate.kernel_cache`). Never set for a model's, a
    user's or a replayed candidate."""


@dataclass(frozen=True)
class ShapeJob:
    """One shape of a job."""

    id: str
    params: dict[str, Any]
    held_out: bool = False
    method: str | None = None
    """The timing method to use ('graph' or 'events'): a baselines job's, or an eval job's where
    the caller fixed it; None: the harness's rule (and always on the interpreter)."""


@dataclass(frozen=True)
class Job:
    """Fields every job has."""

    kind: ClassVar[str] = ""
    device: str = "cpu"
    timeout_s: float = 300.0
    """Wall-clock limit of the whole job."""

    def to_dict(self) -> dict[str, Any]:
        return {"format": JOB_FORMAT, "kind": self.kind, **asdict(self)}


@dataclass(frozen=True)
class OperatorJob(Job):
    """Fields of every job that runs an operator."""

    spec: dict[str, Any] = field(default_factory=dict)
    """`OpSpec.to_dict()`."""
    dtype: str = "float32"
    """The dtype actually run."""
    shapes: tuple[ShapeJob, ...] = ()
    seed: int = 0
    reps: int = 100
    device_memory_bytes: int | None = None
    """Pretend the device has this much memory (tests of the footprint check); None: ask it."""
    sandbox: dict[str, Any] = field(default_factory=dict)
    """What the parent probed of the sandbox here: {'strict': bool, 'layers': {layer: bool}}."""
    gpu_lock: str = ""
    """A lock file shared by evaluations that run at the same time on one GPU (`aka optimize
    --parallel`): timing holds it alone, other device work shares it (`aka.evaluate.gpu_lock`);
    empty: this job has the device to itself."""
    gpu_share: float = 1.0
    """The fraction of the device's memory this job's processes may use between them (1/K when K
    evaluations share the GPU)."""


@dataclass(frozen=True)
class CheckedJob(OperatorJob):
    """Fields of a job whose outputs the judge holds to the reference's."""

    atol: float = 1e-4
    rtol: float = 1e-4
    tol_outputs: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Per output path (atol, rtol) where an output has its own tolerance."""
    mutates: tuple[str, ...] = ()
    """The inputs the operator changes in place."""


@dataclass(frozen=True)
class EvalJob(CheckedJob):
    """Correctness, honesty and timing of one candidate."""

    kind: ClassVar[str] = "eval"
    candidate: CandidateSource = CandidateSource("candidate.py", "")
    trials: int = 3
    time: bool = True
    baselines: tuple[str, ...] = ()
    interleave: bool = False
    """Time the candidate and the baselines twice at each shape, in mirrored order (candidate,
    baselines | baselines reversed, candidate), and report each side's mean: a clock that drifts
    during the shape (a compute-bound kernel heats the GPU) weighs on every side alike."""
    memory_limit_bytes: int = 16 << 30
    """Address-space limit of the candidate's process on the CPU (never on a GPU)."""


@dataclass(frozen=True)
class CompareJob(CheckedJob):
    """Interleaved incumbent/candidate timing, each in its own process (the tolerance holds the
    output of the call checked after each side's cross-check batch on fresh inputs)."""

    kind: ClassVar[str] = "compare"
    incumbent: CandidateSource = CandidateSource("incumbent.py", "")
    candidate: CandidateSource = CandidateSource("candidate.py", "")
    rounds: int = 5
    reps: int = 30
    memory_limit_bytes: int = 16 << 30


@dataclass(frozen=True)
class BaselinesJob(CheckedJob):
    """Eager / torch.compile / production timings of some shapes, each with a given method (a
    production baseline must match the reference within the operator's tolerance)."""

    kind: ClassVar[str] = "baselines"
    baselines: tuple[str, ...] = ("eager", "torch.compile")


@dataclass(frozen=True)
class CalibrateJob(Job):
    """The device's achievable ceilings."""

    kind: ClassVar[str] = "calibrate"
    timeout_s: float = 600.0


@dataclass(frozen=True)
class PingJob(Job):
    """What a candidate's process sees of its sandbox (tests, aka doctor)."""

    kind: ClassVar[str] = "ping"
    timeout_s: float = 60.0


AnyJob = Union[EvalJob, CompareJob, BaselinesJob, CalibrateJob, PingJob]
KINDS: dict[str, type] = {c.kind: c for c in (EvalJob, CompareJob, BaselinesJob, CalibrateJob, PingJob)}


def job_from_dict(data: dict[str, Any]) -> AnyJob:
    """The job a JSON document describes; ValueError on another format, kind or field."""
    if data.get("format") != JOB_FORMAT:
        raise ValueError(f"job format {data.get('format')!r}, expected {JOB_FORMAT!r}")
    cls = KINDS.get(data.get("kind", ""))
    if cls is None:
        raise ValueError(f"unknown job kind {data.get('kind')!r} (known: {', '.join(KINDS)})")
    names = {f.name for f in fields(cls)}
    extra = set(data) - names - {"format", "kind"}
    if extra:
        raise ValueError(f"{cls.kind} job: unknown field(s) {sorted(extra)}")
    d = {k: v for k, v in data.items() if k in names}
    for key in ("candidate", "incumbent"):
        if key in d:
            d[key] = CandidateSource(**d[key])
    if "shapes" in d:
        d["shapes"] = tuple(ShapeJob(**s) for s in d["shapes"])
    if "tol_outputs" in d:
        d["tol_outputs"] = {k: tuple(v) for k, v in d["tol_outputs"].items()}
    for key in ("mutates", "baselines"):
        if key in d:
            d[key] = tuple(d[key])
    return cls(**d)


@dataclass
class OperatorFault:
    """The operator's reference, input generator or constructor arguments raised: the user's
    input is at fault (exit 2), never a candidate."""

    message: str
    file: str = ""
    line: int | None = None
    where: str = ""
    """What was running: 'make_inputs', 'init_kwargs', 'Model(...)', 'Model.forward', ..."""


@dataclass
class DeviceTooSmall:
    """The problem cannot fit the device (exit 3), decided before any candidate ran."""

    needed_bytes: int
    available_bytes: int
    detail: str = ""


@dataclass
class Reply:
    """The trusted side's answer to one job. Candidate failures are `rejections` (data); `error`
    is aka's own fault; `operator_fault` and `device_too_small` are the user's input or machine."""

    ok: bool
    kind: str = ""
    rejections: list[dict[str, Any]] = field(default_factory=list)
    shapes: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    device: dict[str, Any] = field(default_factory=dict)
    kernels: list[str] = field(default_factory=list)
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    failed: dict[str, Any] | None = None
    """Compare: the candidate's failure while timed (a rejection), or None."""
    baselines: dict[str, dict[str, Any]] = field(default_factory=dict)
    calibration: dict[str, Any] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    """Ping: what the candidate's process saw."""
    memory: dict[str, int] = field(default_factory=dict)
    """Peak device (or host) bytes by process: 'trusted' as measured there, 'candidate' as that
    process reported it (forgeable, informational)."""
    operator_fault: OperatorFault | None = None
    device_too_small: DeviceTooSmall | None = None
    died: str = ""
    """Set by the server when the trusted side itself died or timed out: 'timeout' or 'crash'."""
    error: str = ""
    traceback: str = ""
    log: str = ""
    wall_s: float = 0.0
    phases_s: dict[str, float] = field(default_factory=dict)
    """Eval: seconds per phase on the judge's clock (see EvalResult.phases_s)."""

    def to_dict(self) -> dict[str, Any]:
        return {"format": JOB_FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Reply":
        if data.get("format") != JOB_FORMAT:
            raise ValueError(f"reply format {data.get('format')!r}, expected {JOB_FORMAT!r}")
        names = {f.name for f in fields(cls)}
        d = {k: v for k, v in data.items() if k in names}
        if d.get("operator_fault"):
            d["operator_fault"] = OperatorFault(**d["operator_fault"])
        if d.get("device_too_small"):
            d["device_too_small"] = DeviceTooSmall(**d["device_too_small"])
        return cls(**d)
