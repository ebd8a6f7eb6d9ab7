"""Tests of the scripts in tools/ (loaded by path: tools/ is not a package)."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def load_tool(name: str):
    """The module tools/NAME.py, loaded by path."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_offline_compile(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """tools/offline_compile.py with ARGS, from the repository root, on the real compiler (not the
    interpreter): every sm_90 build test runs it through here."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    return subprocess.run([sys.executable, str(ROOT / "tools" / "offline_compile.py"), *args], capture_output=True,
                          text=True, cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)}, timeout=timeout)
