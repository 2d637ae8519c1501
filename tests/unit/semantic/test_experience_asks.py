"""Asking how a product will feel to use, whether the asker needs to bring something, or
(in chat slang) whether to go for it is asking for an opinion; a question that also asks
the value itself keeps the value's key. Questions written for these tests, not taken from
any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "question",
    [
        "Galaxy S24 Ultra 这么大，单手玩游戏会很累吗",
        "MacBook Air M3 没有风扇，剪视频会卡吗",
        "小米14 充电 90W 会烫手吗",
        "Watch GT 4 戴着睡觉硌不硌，压手不压手",
        "X1 Carbon 出差一周需要带充电器吗",
        "AirPods Pro 2 降噪这么强，还能冲吗",
        "does the Galaxy S24 Ultra get too heavy for a small hand",
    ],
)
def test_asking_how_it_will_feel_or_whether_to_go_for_it_is_advice(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "recommend"


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        ("Galaxy S24 Ultra 多重，拿久了累不累", "samsung_galaxy_s24_ultra|weight|"),
        (
            "how heavy is the Galaxy S24 Ultra, does it feel heavy",
            "samsung_galaxy_s24_ultra|weight|",
        ),
        ("X1 Carbon 包装里带充电器吗", "thinkpad_x1_carbon|in_box|"),
    ],
)
def test_the_value_asked_beside_the_feeling_keeps_its_key(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid


@pytest.mark.parametrize(
    "question",
    [
        "is 256GB on the Xiaomi 14 enough for a heavy gamer",
        "does it make sense to get the AirPods Pro 2 for running",
        "is the Watch GT 4 a smart buy for a teenager",
        "the Galaxy S24 Ultra at 232 g, is it uncomfortable in a jacket pocket",
        "Model Y 的百公里电耗算高吗",
        "MacBook Air M3 的屏幕算不算大",
    ],
)
def test_judging_a_value_or_a_choice_is_advice(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "recommend"


@pytest.mark.parametrize(
    "question",
    [
        "Model 3 后备箱多大？你们觉得装婴儿车够用吗",
        "Apple Watch Series 9 午夜色和星光色哪个更耐看",
    ],
)
def test_asking_the_stores_view_or_which_is_more_is_advice(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) in {"recommend", "compare"}


@pytest.mark.parametrize(
    "question",
    [
        "how does the Galaxy S24 battery stack up",
        "is the BYD Han range legit",
        "how good is the Xiaomi 14 screen",
        "Galaxy S24 Ultra 拍照顶不顶",
        "小米14 的屏幕耐不耐用",
    ],
)
def test_asking_how_good_it_is_in_slang_or_plainly_is_advice(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "recommend"


def test_a_worry_stated_before_the_spec_keeps_the_key(extractor: SemanticExtractor) -> None:
    assert (
        decided_cid(extractor, "怕电池不耐用，想问下 Galaxy S24 电池容量多大")
        == "samsung_galaxy_s24|battery_capacity|"
    )


@pytest.mark.parametrize(
    "question",
    ["付尾款用银联卡还是支付宝比较安全", "AirPods Pro 2 拆封后不能退，那先去店里试戴比较好吗"],
)
def test_which_way_is_better_is_advice(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "recommend"
