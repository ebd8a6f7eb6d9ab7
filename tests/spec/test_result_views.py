import pytest

from aka.spec.result import (FORMAT, Comparison, Decision, EvalResult, EvalStatus, Rejection, ShapeResult,
                             Timing)


def _result(status=EvalStatus.WRONG):
    rej = [] if status is EvalStatus.ACCEPTED else [
        Rejection("wrong-output", "out: 3 of 10 elements outside tolerance at shape secret-7", "c.py", 4,
                  shape="secret-7")]
    return EvalResult(status=status, op="rmsnorm", candidate="c.py", candidate_sha256="ab", mode="gpu",
                      dtype="bfloat16", rejections=rej, log="x" * 5000,
                      shapes=[ShapeResult("vis", {"n": 1}, time=Timing(2.0, 0.1, 0.01, 100, "graph")),
                              ShapeResult("secret-7", {"n": 977}, held_out=True, correct=False)])


def test_round_trip_carries_a_format_and_ignores_unknown_keys():
    r = _result()
    d = r.to_dict()
    assert d["format"] == FORMAT
    d["shapes"][0]["from_the_future"] = 1
    d["from_the_future"] = {"x": 1}
    back = EvalResult.from_dict(d)
    assert back.shapes[0].time.median_us == 2.0 and back.status is EvalStatus.WRONG
    d["format"] = "aka.eval/99"
    with pytest.raises(ValueError, match="format"):
        EvalResult.from_dict(d)


def test_proposer_view_hides_held_out_shapes_and_their_ids():
    view = _result().proposer_view()
    text = repr(view)
    assert "secret-7" not in text and "977" not in text
    assert [s["id"] for s in view["shapes"]] == ["vis"]
    assert view["held_out"] == "failed"
    assert view["rejections"][0]["shape"] == "<held-out shape>"
    assert len(view["log"]) == 2000


def test_a_held_out_shapes_sizes_in_an_error_or_the_log_are_scrubbed():
    r = EvalResult(status=EvalStatus.ERROR, op="rmsnorm", candidate="c.py", candidate_sha256="ab", mode="gpu",
                   dtype="bfloat16", log="row count 1000, hidden 5120 (torch.Size([1000, 5120]))\nvisible 4096",
                   rejections=[Rejection("runtime-error", "AssertionError: hidden 5120 in (1000, 5120): "
                                         "5120000 elements\n  File \"c.py\", line 1000, in forward", "c.py", 33,
                                         shape="odd-rows-5120")],
                   shapes=[ShapeResult("prefill", {"n_rows": 4096, "hidden": 4096}, input_shapes=[[4096, 4096]]),
                           ShapeResult("odd-rows-5120", {"n_rows": 1000, "hidden": 5120}, held_out=True,
                                       correct=False, input_shapes=[[1000, 5120]])])
    view = r.proposer_view()
    message, log = view["rejections"][0]["message"], view["log"]
    assert message.startswith("AssertionError: hidden <held-out> in (<held-out>, <held-out>): <held-out> elements")
    assert "line 1000" in message and view["rejections"][0]["line"] == 33     # the traceback still points
    assert log == "row count <held-out>, hidden <held-out> (torch.Size([<held-out>, <held-out>]))\nvisible 4096"
    assert "5120" not in repr(view) and "odd-rows" not in repr(view)


def test_decision_round_trip():
    d = Decision(False, "within noise", 1.004, 0.02,
                 [Comparison(10, 9.96, 1.004, 0.02, 5, False, "graph", shape="a")],
                 Rejection("crash", "died"))
    assert Decision.from_dict(d.to_dict()) == d


def test_a_speedup_that_rounds_up_to_the_bar_keeps_its_digits_cut_not_rounded():
    from aka.spec.result import speedup_text

    assert [speedup_text(v) for v in (0.9985, 0.99996, 0.9951, 0.9949, 0.97, 1.0, 1.004, 2.345)] == \
        ["0.998×", "0.9999×", "0.995×", "0.99×", "0.97×", "1.00×", "1.00×", "2.35×"]
    assert speedup_text(None) == "n/a" and speedup_text(None, none="—") == "—"
    assert speedup_text(0.9985, "x") == "0.998x"
