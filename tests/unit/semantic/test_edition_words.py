"""An edition word the catalog does not list makes no fingerprint, even for an attribute
with one figure per product (constraints.py): that figure is the listed edition's."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_cid


@pytest.mark.parametrize("question", ["Model Y焕新版发布日期是哪天", "三星S24 纪念版 重量多少"])
def test_an_unlisted_edition_gets_no_fingerprint(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_cid(extractor, question) is None


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("苹果15出厂是哪一版系统", "iphone_15|operating_system|"),  # which edition: a question
        ("Model Y发布日期是哪天", "tesla_model_y|release_date|"),
    ],
)
def test_asking_which_edition_is_no_edition_name(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
