"""Building the real parts of an `aka optimize` run from its request (config in, live objects out)."""

from __future__ import annotations

from pathlib import Path

from aka.errors import InputError
from aka.sessions.run import (OptimizeRequest, Outcome, check_resume_op, load_baselines, open_session,
                              run_session)


def run(req: OptimizeRequest, profile: bool = True) -> Outcome:
    """Build the parts and run (or resume) the session; PROFILE False runs without a profiler."""
    from aka.evaluate.evaluator import EvalOptions, Evaluator, detect_device
    from aka.evaluate.harness import HarnessEvaluator
    from aka.evaluate.pool import WorkerPool
    from aka.propose.qd_tuner import QDTuner
    from aka.propose.tuner import Tuner
    from aka.spec.load import load_op

    op = req.op
    if req.resume and not op:
        from aka.sessions.folder import SessionFolder, resolve

        op = SessionFolder(resolve(req.resume, req.sessions_dir)).meta()["op"]["path"]
    spec = load_op(op)
    _check_shapes(spec, req.config.shapes)
    _check_search(req.config)
    folder, config, resumed = open_session(req, spec)
    if resumed:
        check_resume_op(folder, spec)
    root = _repo_root()
    roots = list(req.kernel_roots) or [root / "reference_kernels"]
    with WorkerPool(detect_device(req.device)) as pool:
        options = EvalOptions(shapes=config.shapes, trials=req.trials, seed=config.seed, reps=req.reps,
                              timeout_s=req.timeout_s)
        evaluator = HarnessEvaluator(Evaluator(pool), options, parallel=config.parallel)
        load_baselines(evaluator, folder)
        retriever = _retriever(req, root, roots)
        profiler = None if evaluator.interpreter or not profile else _profiler()
        qd = config.strategy == "map-elites"
        proposer = _llm(req, folder, resumed) or (QDTuner if qd else Tuner)(roots, source_root=root)
        hooks = (QDProgress(req.progress),) if qd else ()
        try:
            return run_session(folder, spec, config, evaluator, proposer, retriever=retriever,
                               profiler=profiler, progress=req.progress, resumed=resumed, extra_hooks=hooks)
        finally:
            evaluator.close()


def _llm(req: OptimizeRequest, folder, resumed: bool):
    """The LLM proposer when a model is given (or recorded by the resumed session), else None.
    Its calls are recorded in the session's llm/ folder; keys stay in the environment."""
    recorded = (folder.meta().get("llm") or {}) if resumed else {}
    model = req.model or recorded.get("model")
    if not model:
        return None
    from aka.propose.calls import CallLog
    from aka.propose.chat import LiteLLMClient
    from aka.propose.llm import LLMProposer

    api_base = req.api_base or (recorded.get("api_base") if model == recorded.get("model") else None)
    client = LiteLLMClient(model, api_base, timeout_s=req.llm_timeout_s)
    return LLMProposer(client, CallLog(folder.llm_dir))


def _check_search(config) -> None:
    """Bad --strategy or map-elites settings exit 2 before anything is created."""
    if config.strategy not in ("greedy", "map-elites"):
        raise InputError(f"--strategy must be greedy or map-elites, not {config.strategy!r}")
    if config.strategy == "map-elites":
        from aka.agent.qd.config import QDConfig

        QDConfig.from_dict(config.search)


class QDProgress:
    """Map-elites lines on stderr: each archive filing, migration and prompt version."""

    def __init__(self, enabled: bool):
        self.enabled = enabled

    def emit(self, kind: str, data: dict) -> None:
        if not self.enabled:
            return
        import sys

        text = ""
        if kind == "archive":
            a = data.get("archive") or {}
            text = (f"   archive island {data['island']}: {data['cell']} {data.get('verdict', '')}"
                    f" ({a.get('cells', 0)} cells filled)")
        elif kind == "migrate":
            moved = [m for m in data.get("moves", []) if m["verdict"] in ("new cell", "replaced")]
            text = f"   migration after generation {data['generation']}: {len(moved)} elite(s) moved"
        elif kind == "prompt":
            text = (f"   prompt {data['created']} ({data.get('origin') or 'rewrite of ' + str(data.get('section'))})"
                    if data.get("created") else f"   prompt rewrite failed: {data.get('failure')}")
        if text:
            print(f"aka: {text}", file=sys.stderr, flush=True)


def _check_shapes(spec, shapes) -> None:
    known = {s.id for s in spec.shapes + spec.cpu_shapes}
    unknown = sorted(set(shapes) - known)
    if unknown:
        raise InputError(f"unknown shape id(s) {unknown} for {spec.name} (known: {', '.join(sorted(known))})")


def _repo_root() -> Path:
    return Path(__file__).resolve().parents[2]


def _retriever(req: OptimizeRequest, root: Path, kernel_roots: list[Path]):
    """One knowledge base for the whole run, ingested from the shipped corpus when empty or stale."""
    if req.kb == "none":
        return None
    from aka.agent.retrieval import KnowledgeRetriever, ensure_index

    kind = req.kb
    if kind == "auto":
        try:
            import chromadb  # noqa: F401
            kind = "chroma"
        except ImportError:
            kind = "memory"
    from aka.knowledge.embed import make_embedder

    if kind == "chroma":
        from aka.knowledge.chroma import ChromaKnowledgeBase
        from aka.knowledge.paths import default_kb_dir

        kb = ChromaKnowledgeBase(default_kb_dir(req.kb_dir), make_embedder(req.embedder))
    else:
        from aka.knowledge.inmemory import InMemoryKnowledgeBase

        kb = InMemoryKnowledgeBase(make_embedder(req.embedder))
    ensure_index(kb, [root / "knowledge", *kernel_roots], progress=req.progress)
    return KnowledgeRetriever(kb)


def _profiler():
    """The platform profiler as the loop's `Profiler`, or None when none is installed."""
    try:
        from aka.cli.optimize_profile import PlatformProfiler
    except ImportError:
        return None
    return PlatformProfiler.detect()

