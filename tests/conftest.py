"""Test-wide setup: without a GPU, Triton kernels run in its interpreter (set before triton loads)."""

import os
import shutil

import pytest


def _has_cuda() -> bool:
    if os.environ.get("AKA_DEVICE") == "cpu":
        return False
    return shutil.which("nvidia-smi") is not None or os.path.exists("/dev/nvidiactl")


if not _has_cuda():
    os.environ.setdefault("TRITON_INTERPRET", "1")


@pytest.fixture(scope="session")
def cpu_pool():
    """One interpreter worker pool per test process (its children must not see this fake secret)."""
    from aka.evaluate.pool import WorkerPool

    os.environ["AKA_TEST_SECRET_API_KEY"] = "must-not-leak"
    with WorkerPool("cpu") as pool:
        pool.start()
        yield pool


@pytest.fixture(scope="session")
def evaluator(cpu_pool):
    from aka.evaluate.evaluator import Evaluator

    return Evaluator(cpu_pool)


@pytest.fixture(scope="session")
def ptxas():
    """The ptxas Triton ships (tools/offline_compile.py builds sm_90 code with it); skips where
    the installed Triton build has none, since the offline build cannot run there."""
    from pathlib import Path

    import triton

    path = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    if not path.exists():
        pytest.skip("this Triton build ships no ptxas, so no sm_90 build can run here")
    return path
