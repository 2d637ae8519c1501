"""The asker's own claim, request or application is personal (admission_policy.json)."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    ["has my price protection claim been approved", "is my warranty application still pending"],
)
def test_the_askers_own_case_is_personal(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_how_to_file_a_claim_is_the_store_policy(extractor: SemanticExtractor) -> None:
    assert (
        decided_cid(extractor, "how do i file a price protection claim") == "null|price_protection|"
    )


@pytest.mark.parametrize(
    "question", ["我手机屏幕碎了 保修管吗", "我手表进水了还保修吗", "俺电脑坏了去哪修"]
)
def test_my_device_without_a_particle_is_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"
