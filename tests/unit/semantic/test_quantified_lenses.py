"""A camera's lenses quantified (几个镜头, "all the lenses") are all asked: the camera's
summary class, no lens hinted at that cannot be read. Questions written for these tests,
not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "小米14有几个镜头，分别多少像素",
        "what are the megapixels of all the lenses on the xiaomi 14",
    ],
)
def test_quantified_lenses_ask_the_summary(extractor: SemanticExtractor, question: str) -> None:
    assert decided_cid(extractor, question) == "xiaomi_14|camera|"


def test_set_aside_but_one_named_lens_is_kept(extractor: SemanticExtractor) -> None:
    # the mechanism reads its own case, and stops at this limit
    assert decided_cid(extractor, "小米14有几个镜头，分别多少像素") == "xiaomi_14|camera|"
    assert decided_cid(extractor, "小米14长焦多少像素") == "xiaomi_14|camera|lens=telephoto"
