"""The profiler's application runs a float32 operator the way the harness times it: TF32 off for
cuBLAS and cuDNN before the operator is even loaded (an H200 profile of a float32 convolution's
torch.compile baseline otherwise showed cuDNN's TF32 tensor-core kernel, 8x faster than the IEEE
float32 baseline the harness timed)."""

import sys

import pytest
import torch

from aka.evaluate import profile_driver


def test_tf32_is_off_before_the_operator_loads(monkeypatch):
    seen = {}

    def load_op(path):
        seen["cudnn"] = torch.backends.cudnn.allow_tf32
        seen["matmul"] = torch.backends.cuda.matmul.allow_tf32
        raise SystemExit(0)

    before = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = True   # PyTorch's cuDNN default
    monkeypatch.setattr(profile_driver, "load_op", load_op)
    monkeypatch.setattr(sys, "argv", ["profile_driver", "op", "candidate.py", "--compile"])
    try:
        with pytest.raises(SystemExit):
            profile_driver.main()
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = before
    assert seen == {"cudnn": False, "matmul": False}
