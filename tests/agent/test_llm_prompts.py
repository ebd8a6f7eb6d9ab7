"""What reaches the model: the real harness's feedback (a syntax error repaired, a torch fallback
refused with its rule), profile and knowledge with sources, and never held-out data."""

import json
import re

from aka.agent.state import LoopConfig
from aka.evaluate.harness import ScriptedEvaluator
from aka.sessions.journal import read_events
from aka.spec.memory import Snippet

from tests.propose.llm_server import ScriptedServer, reply
from tests.propose.replies import BROKEN, FALLBACK, FAST, FIXED, PROSE_ONLY, SLOW, fenced, kernel

from .llm_kit import SPEC, by_strategy, proposer

SECRETS = ("secret-held", "1237", "9973", "1013", "4 * n_rows * hidden", "roofline")


def _no_secrets(srv, folder):
    """No held-out value in a prompt or a call record. A number counts as itself only: '9973'
    inside a recorded duration such as 0.07196769999973 is not the held-out size 9973."""
    texts = srv.prompts() + [(p.read_text()) for p in sorted(folder.llm_dir.glob("*.json"))]
    for text in texts:
        for secret in SECRETS:
            pattern = rf"(?<![\d.]){secret}(?!\d)(?!\.\d*[1-9])" if secret.isdigit() else re.escape(secret)
            assert not re.search(pattern, text), f"{secret!r} reached a prompt"


def _session(tmp_path, srv, evaluator, iterations, **deps):
    from aka.sessions.folder import SessionFolder
    from aka.sessions.run import run_session

    folder = SessionFolder.create(tmp_path, "20260101-000000-rmsnorm-llm", {"op": {"name": SPEC.name}})
    out = run_session(folder, SPEC, LoopConfig(iterations=iterations, stall=10), evaluator,
                      proposer(folder, srv.url), progress=False, **deps)
    return folder, out


def test_the_real_harness_feedback_reaches_the_model_and_held_out_data_never_does(tmp_path):
    from aka.evaluate.evaluator import EvalOptions, Evaluator
    from aka.evaluate.harness import HarnessEvaluator
    from aka.evaluate.pool import WorkerPool

    script = [reply(BROKEN), reply(FIXED), reply(FALLBACK), reply(PROSE_ONLY)]
    with ScriptedServer(script) as srv, WorkerPool("cpu") as pool:
        harness = HarnessEvaluator(Evaluator(pool), EvalOptions(trials=1, reps=10, timeout_s=120))
        folder, out = _session(tmp_path, srv, harness, 4)
    statuses = [e.data["status"] for e in read_events(folder.journal_path).events if e.kind == "evaluate"]
    assert statuses == ["error", "accepted", "cheat", "error"], statuses
    repair = srv.requests[1]["body"]["messages"][-1]["content"]
    assert "rule syntax" in repair and "(line " in repair                 # the error with its line
    after_fallback = srv.last_user(3)
    assert "rule torch-compute" in after_fallback and "torch.rsqrt" in after_fallback   # the rule, next prompt
    assert "Memory of this search" in after_fallback and "Anti-strategies" in after_fallback
    assert out.best == "v002"
    _no_secrets(srv, folder)


def test_profile_summary_and_retrieved_knowledge_with_sources_reach_the_prompt(tmp_path):
    class Profiler:
        def profile(self, spec, candidate, shape_id, compulsory_bytes, out_dir):
            return f"memory-bound at {shape_id}: DRAM traffic 1.42x the compulsory bytes", None

    class Retriever:
        def retrieve(self, spec, device, profile_summary, k):
            return [Snippet(source="reference_kernels/rmsnorm/one_row_registers.py", title="one row per program",
                            text="One program per row loads the whole row into registers.", layer="reference",
                            score=0.9, ops=("rmsnorm",))]

    evaluator = ScriptedEvaluator(by_strategy(), interpreter=False)
    evaluator.device = {"kind": "cuda", "name": "NVIDIA H200", "vendor": "nvidia", "arch": "sm90"}
    with ScriptedServer([reply(SLOW), reply(FAST)]) as srv:
        folder, out = _session(tmp_path, srv, evaluator, 2, profiler=Profiler(), retriever=Retriever())
    second = srv.last_user(1)
    assert "DRAM traffic 1.42x the compulsory bytes" in second
    assert "source: reference_kernels/rmsnorm/one_row_registers.py" in second
    assert "Shapes run here (CPU interpreter)" not in second and "prefill" in second and "H200" in second
    _no_secrets(srv, folder)
    assert json.loads((folder.llm_dir / "0002.json").read_text())["messages"][1]["content"] == second


def _fails_only_at_large_rows() -> str:
    """A kernel that prints each input's size and refuses rows over 1000 columns (only the held-out
    shape has them) with the sizes in its error."""
    src = kernel("held-out-crash")
    alloc = "        y = torch.empty_like(x2)\n"
    return src.replace(alloc, alloc + "        print('rows', x2.shape[0], 'cols', hidden)\n"
                                      "        if hidden > 1000:\n"
                                      "            raise ValueError(f'hidden size {hidden} with {x2.shape[0]} rows is "
                                      "not supported: {tuple(x2.shape)}')\n")


def test_an_error_and_a_log_from_the_held_out_shape_reach_the_model_without_its_sizes(tmp_path):
    from aka.evaluate.evaluator import EvalOptions, Evaluator
    from aka.evaluate.harness import HarnessEvaluator
    from aka.evaluate.pool import WorkerPool

    with ScriptedServer([reply(fenced("Handle the common sizes first.", _fails_only_at_large_rows())),
                         reply(SLOW)]) as srv, WorkerPool("cpu") as pool:
        harness = HarnessEvaluator(Evaluator(pool), EvalOptions(trials=1, reps=10, timeout_s=120))
        folder, out = _session(tmp_path, srv, harness, 2)
    repair = srv.requests[1]["body"]["messages"][-1]["content"]
    assert "rule runtime-error at <held-out shape>" in repair
    assert "ValueError: hidden size <held-out> with 7 rows is not supported: (7, <held-out>)" in repair
    assert "rows 3 cols 100" in repair                       # the log's visible lines stay
    _no_secrets(srv, folder)
