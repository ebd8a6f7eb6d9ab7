"""Download the wheels a lent H200 lacks, at the versions this machine's tests ran with.

  .venv/bin/python tools/device_wheels.py .whl            # the GPU path: eval, optimize, batch
  .venv/bin/python tools/device_wheels.py .whl-llm --llm  # litellm and what it needs there
  .venv/bin/python tools/device_wheels.py .whl-llm --llm --with-gpu-path   # both in one call's 64 MiB

The GPU path's wheels leave out what only optuna's database storage and langsmith's trace
compression import (sqlalchemy, alembic, mako, zstandard: 10.6 MB that aka never loads; with the
four blocked, a CPU `aka optimize` session and a TPE study run, session 44), so a call's 64 MiB
keeps room for the working tree, whose results grow each session. --with-gpu-path adds the GPU
path's wheels to the LLM folder, so one call carries everything the LLM session needs (about 55 MB).

Run it with the project's virtual environment: the closure of each root's requirements is read from
the installed distributions' metadata (extras and other platforms' markers skipped), packages the
device image already holds (the device tool's KINDS.md list, as of 2026-11-17) are left out, and
each of the rest is fetched with `pip download --no-deps` for CPython 3.12 on x86-64 Linux at the
version installed here. The device then installs them with
`pip install --no-index --no-deps --target /tmp/site DIR/*.whl`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

GPU_ROOTS = ["pydantic", "langgraph", "langgraph-checkpoint-sqlite", "optuna", "rank-bm25"]
LLM_ROOTS = ["litellm"]
LLM_UNUSED = {"boto3"}
LEAN_UNUSED = {"sqlalchemy", "alembic", "mako", "zstandard"}
"""litellm requires boto3 (with botocore, 17 MB of wheel) but imports it only for AWS providers; aka
talks to OpenAI-compatible endpoints on the device, and every megabyte counts against a call's 64 MiB."""
DEVICE_HAS = set("""
absl-py accelerate aiofiles aiohappyeyeballs aiohttp aiosignal annotated-doc anyio attrs botorch build
certifi charset-normalizer click cloudpickle colorama contourpy cycler filelock fonttools frozenlist
fsspec grpcio h11 h5py hf-xet httpcore httpx huggingface-hub humanize hypothesis idna jinja2 joblib
markdown markdown-it-py markupsafe matplotlib mdurl msgpack multidict networkx ninja numpy
nvidia-ml-py packaging pandas pillow pip pluggy portalocker propcache protobuf psutil pygments
pyparsing python-dateutil pyyaml regex requests rich safetensors scipy sentence-transformers
setuptools shellingham simplejson six sympy tabulate tiktoken tokenizers torch tqdm transformers
triton typer typing-inspect urllib3 uvloop werkzeug wheel wrapt xxhash yarl zipp
""".split())
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64",
             "manylinux_2_17_x86_64", "manylinux2014_x86_64", "manylinux1_x86_64"]
MARKER_ENV = {"python_version": "3.12", "sys_platform": "linux", "platform_system": "Linux",
              "platform_machine": "x86_64", "implementation_name": "cpython",
              "platform_python_implementation": "CPython", "os_name": "posix", "extra": ""}


def norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def applicable(name: str, extras: set[str] | None = None) -> list[Any]:
    """The requirements (packaging Requirement) of installed `name` that apply on the device: its
    own (extras None), or only what the named extras add (e.g. httpx[http2] -> h2)."""
    from packaging.requirements import Requirement

    out = []
    for text in metadata.distribution(name).requires or []:
        req = Requirement(text)
        marker = req.marker
        if extras is None:
            ok = marker is None or marker.evaluate({**MARKER_ENV, "extra": ""})
        else:
            ok = marker is not None and "extra" in str(marker) and any(
                marker.evaluate({**MARKER_ENV, "extra": e}) for e in extras)
        if ok:
            out.append(req)
    return out


def closure(roots: list[str], skip: frozenset[str] = frozenset()) -> dict[str, str]:
    """name -> installed version, for the roots and everything they require here, extras named in a
    requirement (httpx[http2]) included; skip, and what only it requires, left out."""
    seen: dict[str, str] = {}
    todo = [norm(r) for r in roots]
    while todo:
        name = todo.pop()
        if name in seen or name in DEVICE_HAS or name in skip:
            continue
        try:
            seen[name] = metadata.distribution(name).version
            reqs = applicable(name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"device_wheels: {name} is not installed in {sys.prefix}; "
                             "run this with the project's .venv/bin/python") from None
        for req in reqs:
            todo.append(norm(req.name))
            if req.extras:        # the device may have httpx, but not what its http2 extra adds
                try:
                    todo += [norm(r.name) for r in applicable(req.name, set(req.extras))]
                except metadata.PackageNotFoundError:
                    pass
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--llm", action="store_true", help="litellm's closure instead of the GPU path's")
    parser.add_argument("--with-gpu-path", action="store_true",
                        help="with --llm: the GPU path's wheels too, less what aka never imports")
    args = parser.parse_args()
    gpu_path = closure(GPU_ROOTS, frozenset(LEAN_UNUSED))
    wanted = closure(LLM_ROOTS, frozenset(LLM_UNUSED)) if args.llm else gpu_path
    if args.llm and args.with_gpu_path:
        wanted.update(gpu_path)
    elif args.llm:  # what the GPU-path folder already carries is not fetched twice
        for name in gpu_path:
            wanted.pop(name, None)
    args.dest.mkdir(parents=True, exist_ok=True)
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
           "--python-version", "3.12", "--implementation", "cp", *platforms, "-d", str(args.dest),
           *[f"{name}=={version}" for name, version in sorted(wanted.items())]]
    print(f"device_wheels: {len(wanted)} packages -> {args.dest}: "
          + " ".join(f"{n}=={v}" for n, v in sorted(wanted.items())), file=sys.stderr)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
