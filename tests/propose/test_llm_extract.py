"""Taking the kernel out of a model's reply."""

from aka.propose.extract import extract_code

from .replies import BROKEN, EMPTY, FALLBACK, PROSE_ONLY, TWO_BLOCKS, kernel


def test_a_fenced_block_with_prose_around_it():
    got = extract_code(BROKEN)
    assert got.ok and got.how == "fenced" and got.code.startswith('"""') and "class ModelNew" in got.code
    assert "I'll start" not in got.code


def test_of_several_blocks_the_one_defining_model_new():
    got = extract_code(TWO_BLOCKS)
    assert got.ok and got.how == "fenced: block 2 of 2" and got.code == kernel("two-blocks")


def test_no_fence_at_all_and_an_unterminated_fence():
    assert extract_code(kernel()).how == "whole reply"
    cut = "Here it is:\n```python\n" + kernel()
    got = extract_code(cut)
    assert got.ok and got.how == "unterminated fence" and got.code == kernel()


def test_broken_code_is_still_taken_so_the_harness_can_say_where():
    assert extract_code(BROKEN).code == kernel(broken=True)


def test_replies_without_usable_code_say_why():
    assert extract_code(EMPTY).how == "the reply was empty"
    assert not extract_code(PROSE_ONLY).ok and "no code block" in extract_code(PROSE_ONLY).how
    only_snippet = "Change this:\n```python\nx = tl.load(p)\n```\n"
    assert "none of the reply's 1 code block(s) defines class ModelNew" in extract_code(only_snippet).how
    assert extract_code(FALLBACK).ok                 # honest or not is the harness's call, not extraction's
