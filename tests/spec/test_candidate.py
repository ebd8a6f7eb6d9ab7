import pytest

from aka.errors import CandidateError
from aka.spec.candidate import Candidate, apply_params

SRC = '''"""doc"""
import torch

BLOCK = 128   # tile width
WARPS = 4
NAME = "x"


class ModelNew(torch.nn.Module):
    def forward(self, x, BLOCK=1):
        return x
'''


def test_hash_is_content_and_parameters_only():
    a = Candidate(SRC, {"BLOCK": 256}, origin="tuner", name="a")
    b = Candidate(SRC, {"BLOCK": 256}, origin="llm", name="b", parent="p", rationale="r")
    c = Candidate(SRC, {"BLOCK": 512}, origin="tuner", name="a")
    assert a.hash == b.hash != c.hash
    assert len(a.hash) == 64


def test_materialize_rewrites_module_constants_and_keeps_comments():
    out = Candidate(SRC, {"BLOCK": 512, "NAME": "y"}).materialize()
    assert "BLOCK = 512   # tile width" in out
    assert "NAME = 'y'" in out
    assert "WARPS = 4" in out
    assert "def forward(self, x, BLOCK=1):" in out           # only the module-level constant changes


def test_unknown_parameter_is_a_clear_error():
    with pytest.raises(CandidateError, match=r"\['TILE'\] are not module-level constants"):
        apply_params(SRC, {"TILE": 3}, "k.py")


def test_record_round_trip_and_tamper_detection():
    a = Candidate(SRC, {"WARPS": 8}, origin="tuner", name="k.py", family="rmsnorm/k.py")
    d = a.to_dict()
    assert d["format"] == "aka.candidate/1"
    assert Candidate.from_dict(d) == a
    d["source"] = d["source"].replace("WARPS = 4", "WARPS = 2")
    with pytest.raises(ValueError, match="was altered"):
        Candidate.from_dict(d)


def test_bad_values_are_refused():
    with pytest.raises(ValueError, match="origin"):
        Candidate(SRC, origin="martian")
    with pytest.raises(ValueError, match="only int, float, bool and str"):
        Candidate(SRC, {"BLOCK": [1, 2]})
