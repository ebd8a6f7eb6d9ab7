"""Shared fixture location for the profile tests (shared/ is a sibling of the repository)."""

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "profilers"


@pytest.fixture
def fx():
    """Path of a named profiler fixture; skips when the shared fixtures are absent."""
    if not FIXTURES.is_dir():
        pytest.skip(f"profiler fixtures not found at {FIXTURES}")
    return lambda name: FIXTURES / name
