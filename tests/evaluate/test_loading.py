"""The torch.compile baseline is compiled for each shape as that shape alone would get it."""

import torch

from aka.evaluate.loading import compiled_reference


class _Norm(torch.nn.Module):
    def __init__(self, hidden: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.weight


def _recording_backend(seen: list[list[object]]):
    def backend(gm: torch.fx.GraphModule, example_inputs: list) -> torch.fx.GraphModule:
        seen.append([n.meta.get("example_value") for n in gm.graph.nodes if n.op == "placeholder"])
        return gm
    return backend


def _sizes(placeholders: list[object]) -> list[tuple]:
    return [tuple(v.shape) for v in placeholders if isinstance(v, torch.Tensor)]


SHAPES = [(2 + i, 16 * (i + 1)) for i in range(10)]   # more shapes than Dynamo's recompile limit (8)


def test_every_shape_gets_a_graph_specialized_to_its_sizes():
    seen: list[list[object]] = []
    for rows, hidden in SHAPES:
        model = compiled_reference(_Norm(hidden), backend=_recording_backend(seen))
        x = torch.randn(rows, hidden)
        torch.testing.assert_close(model(x), _Norm(hidden)(x))
    assert len(seen) == len(SHAPES)                   # compiled at every shape: no eager fallback
    for (rows, hidden), placeholders in zip(SHAPES, seen):
        assert all(isinstance(v, torch.Tensor) for v in placeholders), placeholders   # no SymInt inputs
        assert (rows, hidden) in _sizes(placeholders) and (hidden,) in _sizes(placeholders)
        assert not any(isinstance(d, torch.SymInt) for v in placeholders for d in v.shape)


def test_plain_torch_compile_would_not_be_specialized():
    """The hazard the helper removes: the same class compiled again at a second shape gets symbolic
    sizes, so a baseline would depend on the shapes its process timed before."""
    torch._dynamo.reset()
    seen: list[list[object]] = []
    for rows, hidden in SHAPES[:2]:
        torch.compile(_Norm(hidden), backend=_recording_backend(seen))(torch.randn(rows, hidden))
    assert len(seen) == 2
    assert any(not isinstance(v, torch.Tensor) or any(isinstance(d, torch.SymInt) for d in v.shape)
               for v in seen[1])
    torch._dynamo.reset()
