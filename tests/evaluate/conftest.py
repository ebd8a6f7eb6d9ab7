from pathlib import Path

import pytest

from aka.spec.load import load_op

HERE = Path(__file__).parent
CANDIDATES = HERE / "candidates"
FIXTURE_OP = HERE / "fixtures" / "rmsnorm"


@pytest.fixture(scope="session")
def fixture_op():
    return load_op(FIXTURE_OP)
