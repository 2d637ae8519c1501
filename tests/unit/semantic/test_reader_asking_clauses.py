"""The second reader reads again, when it disagrees, only the clauses that name a product
or an attribute or ask something: a greeting and the asker's situation around the
question carry n-grams of other attributes. Its veto stands when a word of the question
names the attribute it reads instead. Questions written for these tests."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


def test_a_situation_sentence_before_the_question_does_not_veto(
    extractor: SemanticExtractor,
) -> None:
    question = (
        "Good evening. We're planning the household budget and a new car is on it. "
        "What's the official guide price of the Tesla Model Y Long Range?"
    )
    assert decided_cid(extractor, question) == "tesla_model_y|price|trim=long_range"
