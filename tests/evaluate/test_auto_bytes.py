"""`bytes: auto` counted on `meta` is the judge's `bytes_of` on real tensors, at shapes of any size,
and None (quietly) for a reference that cannot run there."""

import textwrap
import warnings
from pathlib import Path

import pytest

from aka.evaluate.auto_bytes import auto_bytes
from aka.evaluate.correctness import bytes_of
from aka.evaluate.loading import Operator
from aka.spec.load import load_op

from .conftest import FIXTURE_OP

SUITES = Path(__file__).resolve().parents[2] / "suites"
AUTO_OPS = [SUITES / "kernel-patterns" / "group_norm_nhwc", SUITES / "kernel-patterns" / "softmax_cols",
            SUITES / "llm-inference" / "rmsnorm", SUITES / "llm-inference" / "linear_bf16", FIXTURE_OP]


def judged_bytes(spec, shape_id: str) -> int:
    """bytes_of as the judge takes it: the reference built and run on real CPU tensors."""
    op = Operator(spec.to_dict(), "cpu", spec.dtype)
    params = spec.shape(shape_id).params
    model = op.build(params, 0)
    inputs = op.make_inputs(params, 0)
    return bytes_of(inputs, model, op.reference_forward(model, inputs))


@pytest.mark.parametrize("path", AUTO_OPS, ids=lambda p: p.name)
def test_meta_count_is_the_judges_count_at_every_cpu_shape(path):
    spec = load_op(path)
    assert spec.roofline.bytes == "auto" and spec.cpu_shapes
    for shape in spec.cpu_shapes:
        assert auto_bytes(spec, shape.id) == judged_bytes(spec, shape.id), shape.id


def test_a_gpu_shape_is_counted_without_its_tensors():
    spec = load_op(SUITES / "kernel-patterns" / "group_norm_nhwc")
    batch, hw, c = 1, 65536, 128                  # x and y in float32, then weight and bias
    assert auto_bytes(spec, "vae-decoder-1x65536x128-g32") == batch * hw * c * 4 * 2 + 2 * c * 4


def test_a_kernelbench_problem_of_many_gigabytes_is_counted_without_its_tensors():
    spec = load_op(SUITES / "kernelbench-large" / "19_ReLU.py")
    assert auto_bytes(spec, spec.shapes[0].id) == 4096 * 393216 * 4 * 2     # 12 GiB: x and relu(x)


UNCOUNTABLE = {
    "item-in-forward": """
        def forward(self, x):
            return x * x.max().item()
    """,
    "tolist-in-forward": """
        def forward(self, x):
            return x[: x.shape[0] - int(x.abs().sum().tolist() > 0)]
    """,
    "nonzero-in-forward": """
        def forward(self, x):
            return x[x > 0]
    """,
}


@pytest.mark.filterwarnings("ignore:the reference warns")
@pytest.mark.parametrize("forward", UNCOUNTABLE.values(), ids=UNCOUNTABLE.keys())
def test_a_reference_that_cannot_run_on_meta_counts_nothing_quietly(tmp_path, capsys, forward):
    (tmp_path / "reference.py").write_text(textwrap.dedent("""
        import warnings
        import torch

        print("the reference says hello")
        warnings.warn("the reference warns")


        class Model(torch.nn.Module):
        """) + textwrap.indent(textwrap.dedent(forward), "    ") + textwrap.dedent("""

        def make_inputs(*, dtype, device, n):
            return [torch.randn(n, 8, dtype=dtype, device=device)]
        """))
    (tmp_path / "op.yaml").write_text("name: t\nreference: reference.py\ndtype: float32\n"
                                      "shapes: [{id: big, params: {n: 100000000}}]\n"
                                      "cpu_shapes: [{id: small, params: {n: 4}}]\n"
                                      "roofline: {flops: '8 * n', bytes: auto}\n")
    spec = load_op(tmp_path)
    assert judged_bytes(spec, "small") > 0        # it runs on real tensors: only meta defeats it
    capsys.readouterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert auto_bytes(spec, "big") is None and auto_bytes(spec, "small") is None
    assert capsys.readouterr() == ("", "") and not seen


def test_a_reference_that_fails_to_load_counts_nothing(tmp_path):
    (tmp_path / "reference.py").write_text(textwrap.dedent("""
        import torch


        class Model(torch.nn.Module):
            def forward(self, x):
                return x


        def make_inputs(*, dtype, device, n):
            return [torch.randn(n, dtype=dtype, device=device)]


        raise RuntimeError("broken reference")
        """))
    (tmp_path / "op.yaml").write_text("name: t\nreference: reference.py\ndtype: float32\n"
                                      "shapes: [{id: s, params: {n: 4}}]\nroofline: {flops: n, bytes: auto}\n")
    assert auto_bytes(load_op(tmp_path), "s") is None
