"""Hostile candidates against the worker's process isolation (the static review switched off, so
these prove the sandbox itself): processes that outlive their job, secrets in other processes'
environments, signals to processes outside the job, and exits from candidate code."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from aka.evaluate.evaluator import EvalOptions
from aka.evaluate.pool import isolation

from .conftest import CANDIDATES, FIXTURE_OP

HONEST = (CANDIDATES / "honest_rmsnorm.py").read_text()
UNREVIEWED = EvalOptions(trials=3, time=False, review=False)
needs_pid_ns = pytest.mark.skipif("pid" not in isolation()[1], reason="no PID namespace on this machine")


def hostile(tmp_path, body: str, name: str = "hostile.py") -> Path:
    """The honest kernel with `body` run at the start of every forward call."""
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    src = HONEST.replace("    def forward(self, x: torch.Tensor) -> torch.Tensor:\n",
                         "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n" + lines + "\n")
    path = tmp_path / name
    path.write_text("import os, signal, time\n" + src)
    return path


def _sleepers(tag: str) -> list[str]:
    out = subprocess.run(["pgrep", "-f", f"^sleep {tag}$"], capture_output=True, text=True)
    return out.stdout.split()


def test_forked_sleepers_do_not_outlive_the_evaluation(evaluator, fixture_op, tmp_path):
    cand = hostile(tmp_path, """
for _ in range(5):
    if os.fork() == 0:
        os.setsid()
        os.execvp("sleep", ["sleep", "901.25"])
""")
    result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
    assert result.status.value in ("accepted", "error", "crash")      # its verdict is not the point here
    time.sleep(0.5)
    assert _sleepers("901.25") == []


SPINNER = ("import signal, time\nfor s in (1, 2, 15):\n    signal.signal(s, signal.SIG_IGN)\n"
           "print('spinner-7781 started', flush=True)\nend = time.time() + 60\nwhile time.time() < end:\n    pass")


def test_a_busy_process_that_ignores_signals_does_not_outlive_its_verdict(evaluator, fixture_op, tmp_path):
    """The judge SIGKILLs the candidate's processes as soon as its verdict is decided and answers
    without waiting for them to exit: a candidate ignoring every catchable signal, with a busy
    child in a session of its own, still has nothing running once the evaluation returns (a
    survivor could load the GPU while the next candidate is timed)."""
    cand = hostile(tmp_path, f"""
signal.signal(signal.SIGTERM, signal.SIG_IGN)
if not getattr(os, "_spun", False):
    os._spun = True
    if os.fork() == 0:
        os.setsid()
        os.execvp(sys.executable, [sys.executable, "-c", {SPINNER!r}, "spinner-7781"])
""")
    cand.write_text("import sys\n" + cand.read_text())
    result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
    assert result.status.value in ("accepted", "error", "crash")
    assert "spinner-7781 started" in result.log, "the spinner never ran: the test proves nothing"
    end = time.time() + 2
    while _spinners() and time.time() < end:
        time.sleep(0.05)
    assert _spinners() == []


def _spinners() -> list[str]:
    out = subprocess.run(["pgrep", "-f", "spinner-7781"], capture_output=True, text=True)
    return [p for p in out.stdout.split() if int(p) != os.getpid()]


@needs_pid_ns
def test_no_secret_is_visible_in_any_process_environment_or_command_line(evaluator, fixture_op, tmp_path):
    os.environ["AKA_TEST_SECRET_API_KEY"] = "must-not-leak"        # set in this (the parent) process
    cand = hostile(tmp_path, """
seen, leaked = 0, []
for pid in os.listdir('/proc'):
    if pid.isdigit():
        for part in ('environ', 'cmdline'):
            try:
                data = open('/proc/%s/%s' % (pid, part), 'rb').read()
            except OSError:
                continue
            seen += 1
            if b'must-not-leak' in data or b'pytest' in data:
                leaked.append(pid + '/' + part)
raise RuntimeError('PROBE leaked=%r readable=%d' % (leaked, seen))
""")
    result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
    message = result.rejections[0].message
    assert "PROBE leaked=[]" in message, message


@needs_pid_ns
def test_a_candidate_cannot_signal_processes_outside_its_job(evaluator, fixture_op, tmp_path):
    sentinel = subprocess.Popen(["sleep", "902.5"])
    try:
        cand = hostile(tmp_path, f"""
for pid in list(range(1, 4096)) + [{os.getpid()}, {sentinel.pid}, os.getppid()]:
    if pid != os.getpid():
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
""")
        evaluator.evaluate(fixture_op, cand, UNREVIEWED)
        assert sentinel.poll() is None                                 # outside the job: untouched
        again = evaluator.evaluate(fixture_op, CANDIDATES / "honest_rmsnorm.py", EvalOptions(trials=3, time=False))
        assert again.accepted                                          # the worker server survived
    finally:
        sentinel.kill()


@pytest.mark.parametrize("body,rule", [("exit()", "candidate-exit"), ("raise SystemExit(0)", "candidate-exit"),
                                       ("raise KeyboardInterrupt", "candidate-exit"), ("os._exit(0)", "crash")])
def test_exits_in_forward_are_the_candidates_failure(evaluator, fixture_op, tmp_path, body, rule):
    result = evaluator.evaluate(fixture_op, hostile(tmp_path, body), UNREVIEWED)
    assert not result.accepted and result.rejections[0].rule == rule


def test_exit_in_forward_gives_one_json_document_from_aka_eval(tmp_path):
    cand = tmp_path / "exits.py"
    cand.write_text(HONEST.replace("        x = x.contiguous()\n", "        exit()\n        x = x.contiguous()\n"))
    out = subprocess.run([sys.executable, "-m", "aka", "eval", str(FIXTURE_OP), str(cand), "--device", "cpu",
                          "--json", "--no-time"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    assert doc["status"] == "error" and doc["rejections"][0]["rule"] == "candidate-exit"


DRIVER = """
import signal, sys
# Ctrl-C as in a terminal's foreground, even when the suite runs with SIGINT ignored (started with
# `&` by a non-interactive shell), which this process would inherit and Python would respect
signal.signal(signal.SIGINT, signal.default_int_handler)
from aka.evaluate.evaluator import EvalOptions, Evaluator
from aka.evaluate.pool import WorkerPool
from aka.spec.load import load_op
with WorkerPool("cpu") as pool:
    Evaluator(pool).evaluate(load_op(sys.argv[1]), sys.argv[2], EvalOptions(time=False, review=False))
"""


@needs_pid_ns
@pytest.mark.parametrize("how", ["kill", "interrupt"])
def test_nothing_survives_kill_9_or_ctrl_c_of_aka(tmp_path, how, env=None):
    tag = f"{903 if how == 'kill' else 904}.{os.getpid()}"     # this run's, not another suite's
    cand = hostile(tmp_path, f"""
if os.fork() == 0:
    os.setsid()
    os.execvp('sleep', ['sleep', '{tag}'])
while True:                                     # its own folder is the only place it may write
    with open('heartbeat', 'w') as f:
        f.write(str(time.time()))
    time.sleep(0.05)
""", name=f"spawner_{how}.py")
    proc = subprocess.Popen([sys.executable, "-c", DRIVER, str(FIXTURE_OP), str(cand)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and not _sleepers(tag):
            time.sleep(0.2)
        assert _sleepers(tag), "the candidate never started"
        beats = list(Path(tempfile.gettempdir()).glob(f"aka-jobs-{proc.pid}-*/aka-job-*/cand/heartbeat"))
        assert beats, "the candidate's heartbeat is not in its job folder"
        proc.send_signal(signal.SIGKILL if how == "kill" else signal.SIGINT)
        proc.wait(timeout=30)
    finally:
        proc.kill()                              # a failed check leaves no aka process running
    time.sleep(5)                                # the check's window: everything gone within 5 s
    assert _sleepers(tag) == []
    last = beats[0].stat().st_mtime if beats[0].exists() else None
    time.sleep(1.0)
    now = beats[0].stat().st_mtime if beats[0].exists() else None
    assert now == last, "the candidate still runs after its aka process ended"
    if how == "interrupt":                      # a clean exit also removes its job folders
        assert not list(Path(tempfile.gettempdir()).glob(f"aka-jobs-{proc.pid}-*"))



def test_a_candidate_cannot_see_or_hold_the_gpu_lock_of_its_siblings(evaluator, fixture_op, tmp_path):
    """Evaluations side by side share a lock file; a candidate holding it would stall every
    sibling's timing, so its folder is masked in the candidate's mount namespace, and so is the
    folder of every session's locks (another session's on the same machine included)."""
    from aka.evaluate.gpu_lock import locks_root, new_lock_dir

    lock_dir = Path(tempfile.mkdtemp(prefix="aka-gpu-lock-"))
    other_dir = Path(new_lock_dir())                                  # another session's
    lock, other = lock_dir / "gpu.lock", other_dir / "gpu.lock"
    lock.write_text("")
    other.write_text("")
    try:
        cand = hostile(tmp_path, f"""
import fcntl
got = []
for path in ({str(lock)!r}, {str(other)!r}):
    try:
        fd = os.open(path, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        got.append('held')
    except OSError as exc:
        got.append(type(exc).__name__)
raise RuntimeError('PROBE locks=%s listing=%r root=%r' % (','.join(got), os.listdir({str(lock_dir)!r}),
                                                         os.listdir({locks_root()!r})))
""")
        options = EvalOptions(trials=3, time=False, review=False, gpu_lock=str(lock))
        message = evaluator.evaluate(fixture_op, cand, options).rejections[0].message
        assert "PROBE locks=FileNotFoundError,FileNotFoundError listing=[] root=[]" in message, message
    finally:
        shutil.rmtree(lock_dir, ignore_errors=True)
        shutil.rmtree(other_dir, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="the candidate drops to nobody only when aka runs as root")
def test_a_candidate_cannot_plant_the_launch_floor_every_timing_adds(tmp_path, monkeypatch):
    """The graph launch floor is one cached value per GPU that the judge hands every side
    (aka.hardware.calibrate.shared_floor); a candidate that could write it would set every later
    timing's floor. Its process sees the cache's path in its environment but cannot write there."""
    from aka.evaluate.evaluator import Evaluator
    from aka.evaluate.pool import WorkerPool
    from aka.hardware.calibrate import floor_path
    from aka.spec.load import load_op

    cache = tmp_path / "aka-cache"
    cache.mkdir()
    monkeypatch.setenv("AKA_CACHE_DIR", str(cache))
    target = floor_path("NVIDIA H200")
    cand = hostile(tmp_path, f"""
got = []
for path in (os.path.join(os.environ.get('AKA_CACHE_DIR', '/nonexistent'), 'launch-floor', 'x.json'), {str(target)!r}):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, 'w').write('{{"format": 1, "device": "NVIDIA H200", "us": 0.0001}}')
        got.append('wrote')
    except OSError as exc:
        got.append(type(exc).__name__)
raise RuntimeError('PROBE ' + ','.join(got))
""")
    with WorkerPool("cpu") as pool:
        res = Evaluator(pool).evaluate(load_op(FIXTURE_OP), str(cand), UNREVIEWED)
    assert "PROBE PermissionError,PermissionError" in res.rejections[0].message, res.rejections[0].message
    assert not list(cache.rglob("*"))


def test_a_candidate_cannot_plant_files_in_the_caches_the_judges_torch_compile_reads(evaluator, fixture_op, tmp_path):
    """The judge compiles the torch.compile baseline at every shape with the default Inductor and
    Triton caches of its own user; a planted entry there could slow the baseline and inflate every
    speedup. The candidate's writes there fail, and nothing appears."""
    import getpass

    targets = [os.path.join(tempfile.gettempdir(), f"torchinductor_{getpass.getuser()}"),
               os.path.expanduser("~/.triton/cache"), os.path.expanduser("~/.cache/torch")]
    planted = [os.path.join(d, "aka-planted-by-a-candidate") for d in targets]
    cand = hostile(tmp_path, f"""
wrote = []
for path in {planted!r}:
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write('poison')
        wrote.append(path)
    except OSError:
        pass
raise RuntimeError('PROBE wrote=%r' % wrote)
""")
    try:
        result = evaluator.evaluate(fixture_op, cand, UNREVIEWED)
        assert "PROBE wrote=[]" in result.rejections[0].message, result.rejections[0].message
        assert not any(os.path.exists(p) for p in planted)
    finally:
        for p in planted:
            if os.path.exists(p):
                os.remove(p)
