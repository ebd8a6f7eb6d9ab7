"""The environment a sandboxed process gets: what the GPU stack needs, never a credential."""

from __future__ import annotations

import re

KEEP_PREFIXES = ("CUDA_", "NCCL_", "TORCH_", "NVSHMEM_", "TRITON_", "LC_", "OMP_", "MKL_",
                 "OPENBLAS_", "NVIDIA_", "HIP_", "ROCM_", "HSA_", "AKA_")
KEEP_NAMES = {"PATH", "LD_LIBRARY_PATH", "HOME", "LANG", "TMPDIR", "PYTHONPATH", "CC", "CXX",
              "VIRTUAL_ENV", "TERM", "USER", "LOGNAME", "SHELL", "PYTHONUNBUFFERED"}
SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION", re.IGNORECASE)


def scrubbed_env(environ: dict[str, str]) -> dict[str, str]:
    """What the GPU stack needs, and nothing that looks like a credential."""
    return {
        k: v for k, v in environ.items()
        if (k in KEEP_NAMES or k.startswith(KEEP_PREFIXES)) and not SECRET.search(k)
    }


def job_env(environ: dict[str, str], workdir: str) -> dict[str, str]:
    """The scrubbed environment, with every cache and temporary folder inside `workdir` (the
    only place a sandboxed process may write)."""
    env = scrubbed_env(environ)
    env.update(HOME=workdir, TMPDIR=workdir, TRITON_HOME=workdir, TRITON_CACHE_DIR=f"{workdir}/.triton/cache",
               TORCHINDUCTOR_CACHE_DIR=f"{workdir}/.inductor", XDG_CACHE_HOME=f"{workdir}/.cache",
               PYTHONDONTWRITEBYTECODE="1")
    return env
