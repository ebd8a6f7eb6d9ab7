"""Float64 comparison, NaN/Inf rules, exact integer compare, identity and aliasing."""

import math

import torch

from aka.evaluate.compare import aliased, compare, flatten, identical


def test_within_and_outside_tolerance():
    ref = torch.tensor([1.0, 2.0, 100.0])
    assert compare(ref + 1e-5, ref, 1e-4, 1e-4).ok
    m = compare(ref + torch.tensor([0.0, 0.0, 0.1]), ref, 1e-4, 1e-4)
    assert not m.ok and m.kind == "values" and "(2,)" in m.detail and math.isclose(m.max_abs, 0.1, rel_tol=1e-3)


def test_rtol_scales_with_the_reference():
    ref = torch.tensor([1000.0])
    assert compare(ref + 0.05, ref, 0.0, 1e-4).ok
    assert not compare(ref + 0.2, ref, 0.0, 1e-4).ok


def test_nan_never_passes_unless_the_reference_has_it():
    ref = torch.tensor([1.0, float("nan"), 3.0])
    assert compare(ref.clone(), ref, 1e-4, 1e-4).ok
    extra = compare(torch.tensor([float("nan"), float("nan"), 3.0]), ref, 1e-4, 1e-4, poisoned=True)
    assert not extra.ok and extra.kind == "unwritten"
    missing = compare(torch.tensor([1.0, 2.0, 3.0]), ref, 1e-4, 1e-4)
    assert not missing.ok and missing.kind == "nan"


def test_inf_must_match_exactly():
    ref = torch.tensor([float("inf"), 1.0])
    assert compare(ref.clone(), ref, 1e-4, 1e-4).ok
    assert compare(torch.tensor([-float("inf"), 1.0]), ref, 1e-4, 1e-4).kind == "inf"
    assert compare(torch.tensor([1e30, 1.0]), ref, 1.0, 1.0).kind == "inf"


def test_dtype_shape_and_structure():
    ref = torch.ones(2, 3)
    assert compare(ref.double(), ref, 1, 1).kind == "dtype"
    assert compare(torch.ones(3, 2), ref, 1, 1).kind == "shape"
    assert compare((ref, ref), ref, 1, 1).kind == "structure"
    assert compare({"a": ref, "b": ref}, {"a": ref, "b": ref}, 0, 0).ok


def test_integers_compare_exactly():
    ref = torch.tensor([3, 1, 2])
    assert compare(ref.clone(), ref, 10, 10).ok
    m = compare(torch.tensor([3, 2, 2]), ref, 10, 10)
    assert not m.ok and "exact" in m.detail


def test_low_precision_is_compared_in_float64():
    ref = torch.tensor([1.0, 2.0], dtype=torch.bfloat16)
    assert compare(ref.clone(), ref, 0.0, 0.0).ok


def test_identical_treats_nan_as_equal_in_place():
    a = torch.tensor([1.0, float("nan")])
    assert identical(a, a.clone())
    assert not identical(a, torch.tensor([1.0, 2.0]))


def test_aliasing_detects_views_of_inputs():
    x = torch.randn(4, 4)
    assert aliased(x[1], [("x", x)]) == [("out", "x")]
    assert aliased(torch.empty(4), [("x", x)]) == []
    assert [p for p, _ in flatten({"b": 1, "a": x})] == ["out['a']", "out['b']"]


def test_per_output_tolerance_overrides_the_default():
    ref = (torch.tensor([1.0, 2.0]), torch.tensor([0.5]))
    loose_scale = (ref[0].clone(), torch.tensor([0.55]))
    assert compare(loose_scale, ref, 0.1, 0.2).ok
    m = compare(loose_scale, ref, 0.1, 0.2, per_path={"out[1]": (0.0, 1e-6)})
    assert not m.ok and "out[1]" in m.detail


def test_foreign_leaves_are_told_by_exact_type_without_running_the_outputs_code():
    import torch

    from aka.evaluate.compare import foreign_leaves

    class Sub(torch.Tensor):
        touched = 0

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            Sub.touched += 1
            return super().__torch_function__(func, types, args, kwargs or {})

    class Seq(list):
        def __iter__(self):
            raise AssertionError("iterated")

    plain = torch.zeros(2)
    sub = torch.zeros(2).as_subclass(Sub)
    Sub.touched = 0
    assert foreign_leaves((plain, [1, 2.0, None, "x"], {"a": plain, 3: True})) == []
    assert foreign_leaves((plain, {"y": sub})) == ["out[1]['y'] (" + Sub.__module__ + "." + Sub.__qualname__ + ")"]
    assert foreign_leaves(Seq([plain]))[0].startswith("out (")
    assert foreign_leaves({object(): plain}) == ["out (a key of a type of its own)"]
    assert foreign_leaves(torch.nn.Parameter(torch.zeros(1))) == []
    assert Sub.touched == 0
