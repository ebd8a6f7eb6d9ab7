"""The worker's sandbox: scrubbed environment, own working directory, no network, restarts."""

import os

import pytest

from aka.evaluate.pool import WorkerPool, network_isolation, scrubbed_env


def test_scrubbed_env_keeps_gpu_stack_and_drops_secrets():
    env = scrubbed_env({
        "PATH": "/bin", "HOME": "/root", "CUDA_VISIBLE_DEVICES": "0", "TRITON_CACHE_DIR": "/t",
        "OPENAI_API_KEY": "sk", "HF_TOKEN": "t", "AWS_SECRET_ACCESS_KEY": "s", "TORCH_AUTH_TOKEN": "x",
        "GITHUB_TOKEN": "g", "RANDOM_VAR": "r", "LD_LIBRARY_PATH": "/lib",
    })
    assert env == {"PATH": "/bin", "HOME": "/root", "CUDA_VISIBLE_DEVICES": "0",
                   "TRITON_CACHE_DIR": "/t", "LD_LIBRARY_PATH": "/lib"}


def test_child_sees_no_secrets_and_runs_in_its_own_directory(cpu_pool):
    reply = cpu_pool.submit({"kind": "ping"})
    assert reply["ok"]
    assert "AKA_TEST_SECRET_API_KEY" in os.environ
    assert not any("API_KEY" in k for k in reply["env_keys"])
    assert "TRITON_INTERPRET" in reply["env_keys"]
    assert os.path.basename(reply["cwd"]).startswith("aka-job-")
    assert not os.path.exists(reply["cwd"]), "the job's directory is removed afterwards"


def test_jobs_run_float32_without_tf32(cpu_pool):
    assert cpu_pool.submit({"kind": "ping"})["tf32"] == {"matmul": False, "cudnn": False}


@pytest.mark.skipif(not network_isolation(), reason="unshare cannot make a network namespace here")
def test_child_has_only_loopback(cpu_pool):
    assert cpu_pool.network_isolated
    assert cpu_pool.submit({"kind": "ping"})["net"] == ["lo"]


def test_dead_server_is_restarted():
    with WorkerPool("cpu") as pool:
        pool.start()
        pool.proc.kill()
        pool.proc.wait()
        assert pool.submit({"kind": "ping"})["ok"]


def test_ctrl_c_while_closing_kills_the_server_and_removes_its_jobs(monkeypatch):
    pool = WorkerPool("cpu")
    pool.start()
    proc, root = pool.proc, pool.jobs_root
    wait, calls = proc.wait, []

    def interrupted(timeout=None):
        calls.append(timeout)
        if len(calls) == 1:                        # Ctrl-C in close()'s graceful wait
            raise KeyboardInterrupt
        return wait(timeout=timeout)

    monkeypatch.setattr(proc, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        pool.close()
    assert proc.poll() is not None and not root.exists() and pool.proc is None


def test_a_job_folder_still_written_as_the_server_dies_is_removed_on_a_later_pass(tmp_path):
    """A process of the namespace may write in its folder for a moment after the server is gone;
    the removal retries until the folder is gone."""
    import threading
    import time

    from aka.evaluate.pool import _remove

    folder = tmp_path / "aka-jobs-1-x"
    (folder / "job" / "cand").mkdir(parents=True)
    stop = time.monotonic() + 0.4

    def heartbeat():
        while time.monotonic() < stop:
            try:
                (folder / "job" / "cand" / "heartbeat").write_text(str(time.time()))
            except OSError:
                pass
            time.sleep(0.005)
    t = threading.Thread(target=heartbeat)
    t.start()
    time.sleep(0.05)
    _remove(folder)                      # while the writer still runs
    gone = not folder.exists()
    t.join()
    assert gone


def test_the_server_computes_tritons_process_keys_once_for_every_forked_child(monkeypatch):
    """`prewarm_triton` fills Triton's cached keys before the server forks: a child's first kernel
    call then hashes nothing (here the child checks the cache it inherited)."""
    import os

    from triton.runtime.cache import triton_key

    from aka.evaluate.worker import prewarm_triton

    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert prewarm_triton() == []                               # the interpreter compiles nothing
    monkeypatch.delenv("TRITON_INTERPRET")
    triton_key.cache_clear()
    assert "triton_key" in prewarm_triton()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        misses = triton_key.cache_info().misses
        triton_key()
        os.write(w, b"1" if triton_key.cache_info().misses == misses else b"0")
        os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"1"
    os.waitpid(pid, 0)
