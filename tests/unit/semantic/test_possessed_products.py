"""What the asker or a relative possesses is personal, however the words are spaced."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "我的 Galaxy S24 Ultra 刷新率是多少",  # a space before a Latin product name
        "我家的 MacBook Pro 14 M3 处理器",
        "我妈的 Apple Watch Series 9 防水吗",
    ],
)
def test_a_space_after_the_possessive_keeps_it_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


@pytest.mark.parametrize(
    "question",
    [
        "我这Galaxy S24 刷新率多少",  # 我这 with no classifier: "this one of mine"
        "俺那 MacBook Air M3 多重",
        "我姐手里那台小米14 充电功率",  # 手里 without 的: in her hands
        "我同事手上那块华为Watch GT 4 续航",
        "我手里的 Galaxy S24 Ultra 几寸屏",  # 手里 with 的 after the asker
    ],
)
def test_a_demonstrative_or_hands_after_the_owner_is_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_the_product_alone_is_still_a_spec(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "Galaxy S24 刷新率多少") == "samsung_galaxy_s24|refresh_rate|"


@pytest.mark.parametrize(
    "question",
    [
        "the macbook pro 14 m3 my son uses, what's the processor",
        "the galaxy s24 i use, refresh rate?",
        "the thinkpad x1 carbon im using, how heavy",
    ],
)
def test_a_product_someone_uses_is_personal(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "personal"


@pytest.mark.parametrize(
    "question",
    [
        "is the xiaomi 14 i'm holding waterproof",
        "the model 3 we're driving, what range does it get",
    ],
)
def test_the_device_in_the_askers_hands_is_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


@pytest.mark.parametrize(
    "question",
    ["老公那台 小米14 电池多大", "家里那辆 Model 3 续航多少", "单位给配的 MacBook Air M3 多重"],
)
def test_a_relatives_household_or_employers_device_is_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_a_bare_demonstrative_is_no_owner(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "那台 小米14 多重") == "xiaomi_14|weight|"


@pytest.mark.parametrize(
    "question",
    [
        "how much storage does the Galaxy S24 sitting on my nightstand have",
        "the Model 3 in our carport, what's the range",
        "我书房里那台MacBook Air M3多重",
        "我们家车位上的比亚迪汉续航多少",
        "家里的小米14充电功率多少",
    ],
)
def test_a_product_kept_at_the_askers_place_is_theirs(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


@pytest.mark.parametrize(
    "question",
    [
        "my uncle handed me his old Galaxy S24, what's the refresh rate",
        "we were issued MacBook Air M3s at work, how heavy are they",
        "表哥送了我一副AirPods Pro 2，续航多久",
    ],
)
def test_a_product_given_to_the_asker_is_theirs(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("can you give me the weight of the Galaxy S24", "samsung_galaxy_s24|weight|"),
        ("比亚迪汉续航多少", "byd_han|range|"),
    ],
)
def test_asking_to_be_given_an_answer_is_no_ownership(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid
