"""Retrieval for an operator no kernel declares: reference kernels of the nearest operators, found
from what its reference computes, with no operator filter."""

from pathlib import Path

from aka.agent.retrieval import KnowledgeRetriever
from aka.knowledge.ingest import ingest
from aka.knowledge.inmemory import InMemoryKnowledgeBase
from aka.spec.load import load_op

ROOT = Path(__file__).resolve().parents[2]
CPU = {"kind": "cpu", "name": "cpu", "vendor": "cpu", "arch": "cpu"}

PROBLEM = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        d = x.shape[-1] // 2
        return F.silu(x[..., :d]) * x[..., d:]


def get_inputs():
    return [torch.randn(4, 64)]


def get_init_inputs():
    return []
'''


def test_nearest_kernels_come_from_other_operators_by_what_the_reference_computes(tmp_path):
    kb = InMemoryKnowledgeBase()
    ingest(kb, [ROOT / "reference_kernels" / "silu_and_mul", ROOT / "reference_kernels" / "rmsnorm",
                ROOT / "reference_kernels" / "softmax"], root=ROOT)
    problem = tmp_path / "gated_act.py"
    problem.write_text(PROBLEM)
    spec = load_op(problem)
    retriever = KnowledgeRetriever(kb)
    own = retriever.retrieve(spec, CPU, "", 6)
    assert not any(spec.name in s.ops for s in own)
    near = retriever.nearest_kernels(spec, CPU, 6)
    assert near and all(s.layer == "reference" for s in near)
    assert near[0].source.startswith("reference_kernels/silu_and_mul/"), [s.source for s in near]
