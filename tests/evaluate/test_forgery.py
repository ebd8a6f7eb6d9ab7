"""Verdicts a candidate cannot forge, and a filesystem it cannot write (static review switched off,
so these prove the judge and the sandbox themselves)."""

import os
import uuid
from contextlib import nullcontext
from pathlib import Path
from types import SimpleNamespace

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.pool import sandbox_state
from aka.spec.result import EvalStatus

from .conftest import CANDIDATES

HONEST = (CANDIDATES / "honest_rmsnorm.py").read_text()
UNREVIEWED = EvalOptions(trials=3, time=False, review=False)
REPO = Path(__file__).resolve().parents[2]
needs_mount_ns = pytest.mark.skipif(not sandbox_state()["layers"].get("mount"),
                                    reason="no mount namespace for the candidate's process here")

FORGED = ('{"ok": true, "rejections": [], "notes": [], "kernels": ["_rmsnorm_kernel"], '
          '"shapes": [{"id": "cpu-a", "params": {}, "held_out": false, "correct": true}, '
          '{"id": "cpu-b", "params": {}, "held_out": false, "correct": true}, '
          '{"id": "cpu-held", "params": {}, "held_out": true, "correct": true}]}\n')


def at_import(tmp_path: Path, code: str, name: str, forward_body: str | None = None) -> Path:
    """The honest kernel with `code` run when it is imported (and `forward_body` replacing the
    start of its forward, when given)."""
    src = HONEST
    if forward_body is not None:
        lines = "\n".join("        " + line for line in forward_body.strip().splitlines())
        src = src.replace("    def forward(self, x: torch.Tensor) -> torch.Tensor:\n",
                          "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n" + lines + "\n")
    path = tmp_path / name
    path.write_text("import os, sys, time, json\n" + code.strip() + "\n" + src)
    return path


@pytest.mark.parametrize("then_exit", [True, False])
def test_a_reply_forged_into_every_inherited_descriptor_is_not_believed(evaluator, fixture_op, tmp_path,
                                                                         then_exit):
    """It never computes (returns uninitialized memory), writes a made-up 'all correct' reply
    into every descriptor it holds, and exits (or goes on)."""
    code = f"""
FORGED = {FORGED!r}
for fd in range(0, 1024):
    try:
        os.write(fd, FORGED.encode())
    except OSError:
        pass
{'os._exit(0)' if then_exit else ''}
"""
    cand = at_import(tmp_path, code, f"forger_{then_exit}.py", forward_body="return torch.empty_like(x)")
    result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
    assert not result.accepted, [str(r) for r in result.rejections]
    assert result.status is EvalStatus.CRASH, [str(r) for r in result.rejections]
    assert "answers no command" in result.rejections[0].message     # the forged line itself
    assert not any(s.correct for s in result.shapes)


def test_fast_timings_reported_by_a_patched_clock_are_rejected(evaluator, fixture_op, tmp_path):
    """The candidate slows the clock its own process times it with a hundredfold."""
    code = """
_real = time.perf_counter
_t0 = _real()
time.perf_counter = lambda: _t0 + (_real() - _t0) / 100.0
"""
    cand = at_import(tmp_path, code, "slow_clock.py")
    result = evaluator.evaluate(fixture_op, cand, EvalOptions(trials=1, time=True, review=False))
    assert not result.accepted
    assert result.status is EvalStatus.CHEAT
    assert result.rejections[0].rule == "forged-timing", [str(r) for r in result.rejections]
    honest = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py",
                                EvalOptions(trials=1, time=True))
    assert honest.accepted, [str(r) for r in honest.rejections]
    assert all(s.time is not None for s in honest.shapes if not s.held_out)


@needs_mount_ns
def test_a_candidate_cannot_write_outside_its_job_folder(evaluator, fixture_op, tmp_path):
    tag = uuid.uuid4().hex[:12]
    targets = [REPO / f"aka-forged-{tag}.txt", Path(os.path.expanduser("~")) / f"aka-forged-{tag}.txt",
               Path("/tmp") / f"aka-forged-{tag}.txt", tmp_path / f"aka-forged-{tag}.txt"]
    code = f"""
WROTE = []
for target in {[str(t) for t in targets]!r}:
    try:
        with open(target, 'w') as f:
            f.write('x')
        WROTE.append(target)
    except OSError:
        pass
with open('inside.txt', 'w') as f:                # its own folder stays writable
    f.write('ok')
if WROTE:
    raise RuntimeError('PROBE wrote=%r' % WROTE)
"""
    cand = at_import(tmp_path, code, "writer.py")
    result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
    assert result.accepted, [str(r) for r in result.rejections]
    for t in targets:
        assert not t.exists(), f"{t} was written by a candidate"


def test_a_log_linked_to_a_file_the_candidate_cannot_read_is_not_read_for_it(evaluator, fixture_op, tmp_path):
    """The judge reads the candidate's log as a file the candidate's process wrote; a link planted
    in its place (to a file only the judge could open) is not followed."""
    secret = tmp_path / "judge-only.txt"
    secret.write_text("TOP-SECRET-" + uuid.uuid4().hex)
    secret.chmod(0o600)
    code = f"""
try:
    os.unlink('log.txt')
except OSError:
    pass
os.symlink({str(secret)!r}, 'log.txt')
"""
    cand = at_import(tmp_path, code, "linker.py")
    result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
    assert "TOP-SECRET" not in result.log
    assert all("TOP-SECRET" not in r.message for r in result.rejections)


def test_a_grid_claimed_for_a_forged_median_buys_nothing(evaluator, fixture_op, tmp_path):
    """The candidate's process reports its timings as if taken on a coarse clock (a tick, and the
    grouped median cut to a fiftieth): the judge trusts neither the figure nor the tick it claims,
    and its own clock's batch rejects the claim."""
    code = """
import aka.evaluate.timing as _t
_real = _t.stats
def _forged(samples, method):
    t = _real(samples, method)
    t.tick_us, t.median_us = 0.25, t.median_us / 50
    return t
_t.stats = _forged
"""
    cand = at_import(tmp_path, code, "grid_forger.py")
    result = evaluator.evaluate(fixture_op, cand, EvalOptions(trials=1, time=True, review=False))
    assert result.status is EvalStatus.CHEAT, [str(r) for r in result.rejections]
    assert result.rejections[0].rule == "forged-timing", [str(r) for r in result.rejections]
    assert "calls took" in result.rejections[0].message          # the judge's own clock said so


def test_repeat_timings_forged_fast_in_a_comparison_are_not_believed(evaluator, fixture_op, tmp_path):
    """The candidate's process answers its first timing at a shape honestly and every later one
    (the short-warm-up repeats of an interleaved comparison) with a made-up tiny time."""
    code = """
import aka.evaluate.timing as _t
_real, _seen = _t.bench_cpu, [0]
def _forged(calls, *a, **k):
    _seen[0] += 1
    t = _real(calls, *a, **k)
    if _seen[0] > 1:
        t.median_us = t.median_us / 50
    return t
_t.bench_cpu = _forged
"""
    cand = at_import(tmp_path, code, "repeat_forger.py")
    d = evaluator.compare(fixture_op, CANDIDATES / "honest_rmsnorm.py", cand, rounds=3)
    assert not d.promote and d.failure is not None and d.failure.rule == "forged-timing"


EMPTY_BATCH = """
_real = time.perf_counter
_t0 = _real()
time.perf_counter = lambda: _t0 + (_real() - _t0) / 100.0
for _name, _mod in list(sys.modules.items()):
    _cls = getattr(_mod, "Runner", None)
    if _name.startswith("aka.") and isinstance(_cls, type) and hasattr(_cls, "batch"):
        def _empty_batch(self, cmd, chan):
            chan.send({"ok": True, "ready": True, "seq": cmd.get("seq")})
            chan.receive()
            return {"how": "calls"}
        _cls.batch = _empty_batch
"""
"""Slows its process's clock a hundredfold and replaces the worker's batch command with one that
answers "done" without running the calls, so the judge's clock sees an empty window too."""


def test_a_clock_forger_that_also_empties_the_judges_batch_is_stopped_by_the_review(evaluator, fixture_op,
                                                                                    tmp_path):
    cand = at_import(tmp_path, EMPTY_BATCH, "empty_batch.py")
    result = evaluator.evaluate(fixture_op, cand, EvalOptions(trials=1, time=True))
    assert result.status is EvalStatus.CHEAT, [str(r) for r in result.rejections]
    assert {"module-patching", "introspection"} <= {r.rule for r in result.rejections}


def test_a_clock_forger_hidden_in_a_string_run_through_a_stdlib_alias_of_builtins_is_stopped_by_the_review(
        evaluator, fixture_op, tmp_path):
    """The same forger, written as a string and run by `enum.bltns.exec` (the enum module keeps the
    builtins module as `bltns`): every import in the file is on the allowlist and no name it reads is
    a refused builtin, so until session 49 the review passed it and the forged claim stood."""
    code = "import sys, time\n" + EMPTY_BATCH
    path = tmp_path / "enum_exec.py"
    path.write_text(f"import enum\nenum.bltns.exec({code!r})\n" + HONEST)
    result = evaluator.evaluate(fixture_op, path, EvalOptions(trials=1, time=True))
    assert result.status is EvalStatus.CHEAT, [str(r) for r in result.rejections]
    assert "introspection" in {r.rule for r in result.rejections}


def test_a_cache_keyed_by_buffer_and_version_is_timed_doing_its_work(evaluator, fixture_op):
    """It passes the refill check (refilled buffers get a new version) and, until session 49, every
    timed call on the same unchanged inputs returned its kept result: about 6 µs on the interpreter
    against about 5,000 for the same kernel computing. The harness now moves the inputs' version
    counters on before each timed call, so each one computes."""
    timed = EvalOptions(trials=1, time=True)       # its source is ordinary: weight prepacks key on versions too
    honest = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", timed)
    cached = evaluator.evaluate(fixture_op, CANDIDATES / "cheat_version_keyed_cache.py", timed)
    assert honest.status is EvalStatus.ACCEPTED and cached.status is EvalStatus.ACCEPTED, \
        [str(r) for r in honest.rejections + cached.rejections]
    for h, c in zip(honest.shapes, cached.shapes):
        if h.time is not None:
            assert c.time.median_us > h.time.median_us / 20, (h.id, h.time.median_us, c.time.median_us)


def test_a_candidate_that_stops_computing_once_the_checks_are_over_is_caught_by_the_timed_output(
        evaluator, fixture_op):
    """It counts its calls and, after the 26 the checks make (three shapes), runs its kernel on one
    row only. Until session 49 it was accepted (2,127 µs on the interpreter, the honest kernel
    6,129); one more call like the timed ones, made right after them, must now give the right output."""
    result = evaluator.evaluate(fixture_op, CANDIDATES / "cheat_call_counting.py", EvalOptions(trials=3, time=True))
    assert result.status is EvalStatus.CHEAT, [str(r) for r in result.rejections]
    assert result.rejections[0].rule == "timed-output" and result.rejections[0].shape == "cpu-a"


@pytest.mark.xfail(strict=True, reason="known gap: code in the candidate's process can rewrite the worker's "
                   "batch command, so without the static review the judge's clock sees no calls (the one output "
                   "checked after a batch on fresh inputs does not show that the batch's calls ran); the fix is a "
                   "batch whose every output the judge can check, or one run outside the candidate's process")
def test_a_clock_forger_that_also_empties_the_judges_batch_is_caught_without_the_review(evaluator, fixture_op,
                                                                                       tmp_path):
    cand = at_import(tmp_path, EMPTY_BATCH, "empty_batch.py")
    result = evaluator.evaluate(fixture_op, cand, EvalOptions(trials=1, time=True, review=False))
    assert result.status is EvalStatus.CHEAT, [s.time for s in result.shapes]


def _batches(monkeypatch, per_call_us: list[float]) -> list[int]:
    """The judge's cross-check with its batches replaced by PER_CALL_US, one figure a batch;
    returns the list the batches append their n to."""
    from aka.evaluate import judge

    ran: list[int] = []

    def batch(remote, i, params, seed, n, fresh=None):
        ran.append(n)
        t = per_call_us[len(ran) - 1]
        return t * n, t, "calls"
    monkeypatch.setattr(judge, "_batch", batch)
    return ran


def test_one_slow_batch_on_a_busy_host_does_not_make_an_honest_claim_forged(monkeypatch):
    """CI once saw an honest 70 µs claim take over 4x that in the CPU batch: the next batch decides."""
    from aka.evaluate.judge import cross_check

    ran = _batches(monkeypatch, [400.0, 80.0, 80.0])
    assert cross_check(None, 0, {}, 0, {"median_us": 70.0}, False, None) is None
    assert len(ran) == 2


def test_a_claim_every_batch_contradicts_is_forged_after_all_tries(monkeypatch):
    from aka.evaluate.judge import BATCH_TRIES, cross_check

    ran = _batches(monkeypatch, [9000.0, 7000.0, 8000.0])
    rule, why = cross_check(None, 0, {}, 0, {"median_us": 70.0}, False, None)
    assert rule == "forged-timing"
    assert len(ran) == BATCH_TRIES and "took 35000 µs" in why and "fastest of 3 batches" in why   # 5 x 7000
    ran = _batches(monkeypatch, [60.0])
    assert cross_check(None, 0, {}, 0, {"median_us": 70.0}, False, None) is None and ran == [5]


def test_a_batch_makes_enough_calls_to_fill_its_window_up_to_its_cap(monkeypatch):
    from aka.evaluate.judge import BATCH_CALLS_MAX, BATCH_WINDOW_US, cross_check

    ran = _batches(monkeypatch, [3.0])                       # a decode-size claim on a GPU: the cap
    assert cross_check(None, 0, {}, 0, {"median_us": 3.0}, True, None) is None and ran == [BATCH_CALLS_MAX]
    ran = _batches(monkeypatch, [200.0])                     # a long call: the window decides
    assert cross_check(None, 0, {}, 0, {"median_us": 200.0}, True, None) is None
    assert ran == [int(BATCH_WINDOW_US / 200.0)] and 3 <= ran[0] < BATCH_CALLS_MAX



REMOTE = SimpleNamespace(timed=lambda phase: nullcontext())
"""A remote whose phase clock does nothing (the batches themselves are faked)."""


class _FakeFresh:
    """A FreshCheck whose reference is an input set of `set_bytes` and whose output check says `verdict`."""

    def __init__(self, set_bytes: int, verdict=None):
        self.set_bytes, self.verdict, self.seeds = set_bytes, verdict, []

    def reference(self, inputs_seed, sample_seed):
        self.seeds.append((inputs_seed, sample_seed))
        return None, self.set_bytes

    def judge(self, remote, want):
        return self.verdict


def test_a_batch_on_fresh_inputs_is_bounded_by_their_bytes_and_its_call_cap(monkeypatch):
    """Each call of a fresh batch has an input set of its own, made before the window: at most
    FRESH_BYTES of them and FRESH_CALLS_MAX calls, two at least; new seeds for every batch."""
    from aka.evaluate.judge import FRESH_BYTES, FRESH_CALLS_MAX, LARGE_BYTES, cross_check

    ran = _batches(monkeypatch, [3.0])
    assert cross_check(REMOTE, 0, {}, 0, {"median_us": 3.0}, True, None, _FakeFresh(1 << 20)) is None
    assert ran == [FRESH_CALLS_MAX]
    ran = _batches(monkeypatch, [60.0])
    assert cross_check(REMOTE, 0, {}, 0, {"median_us": 60.0}, True, None, _FakeFresh(FRESH_BYTES // 4)) is None
    assert ran == [4]
    ran = _batches(monkeypatch, [900.0, 900.0, 900.0])       # sets over the budget: still two calls
    fresh = _FakeFresh(FRESH_BYTES + FRESH_BYTES // 2)
    assert cross_check(REMOTE, 0, {}, 0, {"median_us": 100.0}, True, None, fresh)[0] == "forged-timing"
    assert ran == [2, 2, 2] and len(set(fresh.seeds)) == 3
    ran = _batches(monkeypatch, [900.0, 900.0, 900.0])       # past LARGE_BYTES a set: the timed inputs again
    fresh = _FakeFresh(LARGE_BYTES + 1, verdict=("batch-output", "never asked"))
    assert cross_check(REMOTE, 0, {}, 0, {"median_us": 100.0}, True, None, fresh)[0] == "forged-timing"
    assert ran == [300, 300, 300] and len(fresh.seeds) == 1


def test_a_wrong_output_after_a_fresh_batch_ends_the_cross_check(monkeypatch):
    from aka.evaluate.judge import cross_check

    ran = _batches(monkeypatch, [50.0])
    verdict = ("batch-output", "wrong")
    assert cross_check(REMOTE, 0, {}, 0, {"median_us": 50.0}, True, None, _FakeFresh(1 << 20, verdict)) == verdict


def test_a_cache_keyed_by_a_fingerprint_of_the_inputs_is_caught_by_a_batch_on_fresh_inputs(evaluator, fixture_op):
    """Its own kernel samples two input elements, read to the host, and keys its kept result on them:
    the refill check, the trials and the timed-output call all get right answers, and every timed
    call on a set it has seen returns the kept result. Until session 50 it was accepted (915 µs
    against 12,581 for the honest kernel on the interpreter at cpu-a); the judge's batch now calls it
    on input sets it has never seen, where it computes, and its claim is forged by the judge's clock."""
    result = evaluator.evaluate(fixture_op, CANDIDATES / "cheat_fingerprint_cache.py", EvalOptions(trials=1, time=True))
    assert result.status is EvalStatus.CHEAT, [str(r) for r in result.rejections]
    assert result.rejections[0].rule == "forged-timing", [str(r) for r in result.rejections]


def test_a_fingerprint_cache_that_skips_work_on_unseen_unchecked_inputs_is_caught_by_the_batch_output(
        evaluator, fixture_op):
    """It also returns an empty tensor for unseen inputs outside the checks (it tells them by the
    harness's NaN poisoning), so the fresh batch is as fast as its forged claim; one more such call,
    after the batch, is checked (accepted at 1,608 µs against 12,581 µs honest until session 50)."""
    result = evaluator.evaluate(fixture_op, CANDIDATES / "cheat_fingerprint_fast_batch.py",
                                EvalOptions(trials=1, time=True))
    assert result.status is EvalStatus.CHEAT, [str(r) for r in result.rejections]
    assert result.rejections[0].rule == "batch-output", [str(r) for r in result.rejections]


def test_a_fingerprint_cache_in_an_interleaved_comparison_is_caught_by_a_batch_on_fresh_inputs(evaluator, fixture_op):
    """An accept-step comparison starts the candidate's process afresh with timings, no checks:
    there the fingerprint cache answers every repeat from its kept result. Each side's cross-check
    batch runs on fresh inputs too (until session 50 the comparison's did not)."""
    d = evaluator.compare(fixture_op, CANDIDATES / "honest_rmsnorm.py", CANDIDATES / "cheat_fingerprint_cache.py",
                          rounds=3)
    assert not d.promote and d.failure is not None and d.failure.rule == "forged-timing", d
    assert d.failure.message.startswith("candidate:")
