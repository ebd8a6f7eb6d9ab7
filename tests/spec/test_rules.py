"""One rules table: every rule a rejection can name has a verdict and a documented section."""

import re
from pathlib import Path

import pytest

from aka.evaluate import review
from aka.evaluate.evaluator import status_of
from aka.spec import rules
from aka.spec.result import EvalStatus, Rejection

DOC = Path(__file__).resolve().parents[2] / "docs" / "honesty.md"


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for the markdown headings."""
    found = set()
    for heading in re.findall(r"^#+ (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        found.add(slug)
    return found


def _documented(text: str) -> set[str]:
    ids = set()
    for cell in re.findall(r"^\| (`[^|]+)\|", text, flags=re.M):
        ids |= set(re.findall(r"`([a-z0-9-]+)`", cell))
    return ids


def test_every_rule_is_documented_and_every_documented_rule_is_known():
    text = DOC.read_text()
    assert _documented(text) == set(rules.RULES)
    anchors = _anchors(text)
    for rule_id, rule in rules.RULES.items():
        assert rule.anchor in anchors, (rule_id, rule.anchor)
        EvalStatus(rule.status)


def test_every_rule_the_review_can_name_is_in_the_table():
    emitted = set(review.REFUSED_MODULES) | set(review.TRITON_REFUSED.values()) | {"import-not-allowed"}
    assert emitted <= set(rules.RULES)


def test_an_unknown_rule_is_an_error_not_a_cheat():
    with pytest.raises(rules.UnknownRule, match="not-a-rule"):
        status_of([Rejection("not-a-rule", "x")])
    assert status_of([Rejection("forged-timing", "x")]) is EvalStatus.CHEAT
    assert status_of([Rejection("out-of-memory", "x")]) is EvalStatus.ERROR
    assert status_of([]) is EvalStatus.ACCEPTED
    assert rules.doc_link("ghost-replay") == "docs/honesty.md#honesty-at-run-time"
