"""Test-wide setup: without a GPU, Triton kernels run in its interpreter (set before triton loads)."""

import os
import shutil


def _has_cuda() -> bool:
    if os.environ.get("AKA_DEVICE") == "cpu":
        return False
    return shutil.which("nvidia-smi") is not None or os.path.exists("/dev/nvidiactl")


if not _has_cuda():
    os.environ.setdefault("TRITON_INTERPRET", "1")
