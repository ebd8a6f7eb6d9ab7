"""Dependencies run one way, and the evaluation worker needs only torch, triton, numpy, pyyaml."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1] / "aka"
ORDER = ["spec", "hardware", "sandbox", "evaluate", "profile", "knowledge", "propose", "agent", "sessions",
         "replay", "export", "batch", "cli"]
MIDDLE = {"evaluate", "profile", "knowledge", "propose"}


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("aka."):
            found.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("aka.")}
    return found


def test_parts_import_only_downstream():
    for part_dir in ROOT.iterdir():
        if not part_dir.is_dir() or part_dir.name not in ORDER:
            continue
        part = part_dir.name
        for f in part_dir.rglob("*.py"):
            for dep in imports_of(f) - {part, "errors"}:
                assert dep in ORDER, f"{f}: imports unknown part {dep}"
                assert ORDER.index(dep) < ORDER.index(part), f"{f}: {part} must not import {dep}"
                assert not (part in MIDDLE and dep in MIDDLE), f"{f}: {part} must not import {dep}"


def test_worker_loads_without_heavy_dependencies():
    code = (
        "import sys, aka.evaluate.server, aka.evaluate.worker, aka.evaluate.evaluator, aka.cli.main\n"
        "heavy = [m for m in ('pydantic', 'langgraph', 'litellm', 'chromadb', 'sentence_transformers')"
        " if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_nothing_runs_at_import():
    code = "import os, aka, aka.cli.main, aka.evaluate.pool; print(os.path.exists('.aka'))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd="/tmp")
    assert out.stdout.strip() == "False"
