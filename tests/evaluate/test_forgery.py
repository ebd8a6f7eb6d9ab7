"""Verdicts a candidate cannot forge, and a filesystem it cannot write (static review switched off,
so these prove the judge and the sandbox themselves)."""

import os
import uuid
from pathlib import Path

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
