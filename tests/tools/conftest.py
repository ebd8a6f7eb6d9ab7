import pytest

from aka.evaluate.evaluator import Evaluator
from aka.evaluate.pool import WorkerPool


@pytest.fixture(scope="session")
def evaluator():
    with WorkerPool("cpu") as pool:
        yield Evaluator(pool)
