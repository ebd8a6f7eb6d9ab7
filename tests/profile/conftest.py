"""Shared fixture location for the profile tests (shared/ is a sibling of the repository)."""

import os
from pathlib import Path

import pytest

# shared/ is a sibling of the repository; AKA_PROFILER_FIXTURES points elsewhere (the GPU machine,
# where shared/ does not travel and a copy is carried instead)
FIXTURES = Path(os.environ.get("AKA_PROFILER_FIXTURES")
                or Path(__file__).resolve().parents[2].parent / "shared" / "fixtures" / "profilers")


@pytest.fixture
def fx():
    """Path of a named profiler fixture; skips when the shared fixtures are absent (never in CI)."""
    if not FIXTURES.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"profiler fixtures not found at {FIXTURES}: CI must have shared/ beside the repo")
        pytest.skip(f"profiler fixtures not found at {FIXTURES}")
    return lambda name: FIXTURES / name
