"""Outputs handed over as files: the structure and bytes come back exactly; a planted link, a file of
the wrong size or outputs over the cap are the candidate's malformed output, never read."""

import os

import pytest
import torch

from aka.evaluate import handover
from aka.evaluate.handover import HandoverError

CPU = torch.device("cpu")


def test_a_structure_of_tensors_and_scalars_comes_back_exactly(tmp_path):
    value = {"y": torch.arange(12, dtype=torch.float32).reshape(3, 4).t(), "n": 3,
             "pair": (torch.tensor([True, False]), torch.empty(0, 5, dtype=torch.int64)),
             "half": torch.randn(7, dtype=torch.bfloat16), "scalar": torch.tensor(2.5, dtype=torch.float64)}
    handover.write(str(tmp_path), "out", value)
    got = handover.read(str(tmp_path), "out", 1 << 20, CPU)
    assert got.keys() == value.keys() and got["n"] == 3 and isinstance(got["pair"], tuple)
    for key in ("y", "half", "scalar"):
        assert got[key].dtype == value[key].dtype and torch.equal(got[key], value[key].contiguous())
    assert torch.equal(got["pair"][0], value["pair"][0]) and got["pair"][1].shape == (0, 5)
    handover.remove(str(tmp_path), "out")
    assert not os.listdir(tmp_path)
    assert got["y"].sum().item() == 66.0                         # owns its memory once the files are gone


def test_a_planted_link_is_not_followed(tmp_path):
    secret = tmp_path / "secret"
    secret.write_bytes(b"\1" * 16)
    handover.write(str(tmp_path), "out", torch.zeros(4, dtype=torch.float32))
    os.unlink(tmp_path / "out.0.bin")
    os.symlink(secret, tmp_path / "out.0.bin")
    with pytest.raises(HandoverError, match="unreadable"):
        handover.read(str(tmp_path), "out", 1 << 20, CPU)


def test_a_file_of_the_wrong_size_or_over_the_cap_is_refused(tmp_path):
    handover.write(str(tmp_path), "out", torch.zeros(4, dtype=torch.float32))
    with pytest.raises(HandoverError, match="larger than the reference's allow"):
        handover.read(str(tmp_path), "out", 8, CPU)
    with open(tmp_path / "out.0.bin", "ab") as f:
        f.write(b"\0")
    with pytest.raises(HandoverError, match="17 bytes"):
        handover.read(str(tmp_path), "out", 1 << 20, CPU)
