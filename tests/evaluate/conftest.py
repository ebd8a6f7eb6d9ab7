import os
from pathlib import Path

import pytest

from aka.evaluate.evaluator import Evaluator
from aka.evaluate.pool import WorkerPool
from aka.spec.load import load_op

HERE = Path(__file__).parent
CANDIDATES = HERE / "candidates"
FIXTURE_OP = HERE / "fixtures" / "rmsnorm"


@pytest.fixture(scope="session")
def cpu_pool():
    os.environ["AKA_TEST_SECRET_API_KEY"] = "must-not-leak"
    with WorkerPool("cpu") as pool:
        pool.start()
        yield pool


@pytest.fixture(scope="session")
def evaluator(cpu_pool):
    return Evaluator(cpu_pool)


@pytest.fixture(scope="session")
def fixture_op():
    return load_op(FIXTURE_OP)
