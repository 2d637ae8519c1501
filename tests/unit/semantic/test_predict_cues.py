"""Predict cues: questions about a product's or a purchase's future (launches, successors,
updates, prices expected to change, support horizons), and present or store-rule
questions that must keep their fingerprint. Questions written for these tests, not taken
from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from tests.unit.semantic.decisions import decided_bypass as _intent
from tests.unit.semantic.decisions import decided_cid


def test_after_opening_is_no_future(extractor: SemanticExtractor) -> None:
    decision = extractor.decide("拆封之后还能退吗", second_reader=False)
    assert isinstance(decision, Fingerprint), decision


@pytest.mark.parametrize(
    "text",
    [
        "will the Xiaomi 14 get HyperOS 2",
        "will you sell the Mate 70",
        "will you lower the price of the Mate 60",
        "will I get updates on the iPhone 15 for 5 years",
        "will we see a cheaper MacBook Air M3",
    ],
)
def test_will_about_the_product_future_stays_predict(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision


@pytest.mark.parametrize(
    ("text", "product"),
    [
        # A catalog product is on sale, so "when does it launch" asks its launch date.
        ("小米14什么时候上市", "xiaomi_14"),
        ("iPhone 15 什么时候发布", "iphone_15"),
    ],
)
def test_launch_question_about_a_catalog_product_is_its_release_date(
    extractor: SemanticExtractor, text: str, product: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Fingerprint), decision
    assert (decision.product, decision.attribute) == (product, "release_date")


@pytest.mark.parametrize(
    "text",
    ["小米15什么时候上市", "华为什么时候发布新手机", "什么时候上市", "下一代小米14什么时候出"],
)
def test_launch_question_without_a_catalog_product_stays_predict(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent in {"predict", "unknown_product"}


@pytest.mark.parametrize(
    "question",
    [
        # A version above the catalog's launch value.
        "galaxy s24 one ui 8",
        "does the s24 ultra run android 16",
        "mate 60 pro 鸿蒙6体验怎么样",
        "apple watch series 9 watchos 13 features",
        "thinkpad x1 carbon windows 13",
        # An update asked as coming or when.
        "xiaomi 14 new firmware update coming soon?",
        "when is the next os update for the xiaomi 14",
        "小米14系统更新什么时候来",
        "小米14啥时候推送新系统",
        # A month ahead, nothing stated as past.
        "galaxy s24 price in november",
        "macbook air m3 price around february",
        "how much is the model y by next march",
        "小米14 11月价格",
        # A launch still to come.
        "iphone 16 price after the iphone 18 launch",
        "galaxy s24 cost once the s26 comes out",
        "macbook air m3 price after the next launch",
        "华为Mate 80发布之后Mate 60价格",
        # A resale price after a time still to pass.
        "小米14过两年还能卖多少钱",
        "苹果16还能卖多少",
    ],
)
def test_newer_versions_coming_updates_and_later_resale_are_predict(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _intent(extractor, question) == "predict", extractor.decide(question)


@pytest.mark.parametrize(
    ("question", "cid"),
    [
        # The launch version itself, confirmed.
        ("is the galaxy s24 on android 14 out of the box", "samsung_galaxy_s24|operating_system|"),
        ("apple watch series 9 ships with watchos 10?", "apple_watch_series_9|operating_system|"),
        ("mate 60 pro 出厂是鸿蒙4吗", "huawei_mate_60_pro|operating_system|"),
        # A month stated as past: the release date.
        ("was the iphone 16 released in september", "iphone_16|release_date|"),
        # A conditional, not the asker's history: the store's rule.
        ("if i opened the box, can i still return it", "null|return_policy|item_state=opened"),
        # Price protection in other words than the vocabulary's phrase.
        ("if the price drops after i order, is the difference paid back", "null|price_protection|"),
        ("小米14价格多少", "xiaomi_14|price|"),
    ],
)
def test_near_questions_keep_their_fingerprint(
    extractor: SemanticExtractor, question: str, cid: str
) -> None:
    assert decided_cid(extractor, question) == cid, extractor.decide(question)


@pytest.mark.parametrize(
    "question",
    [
        # A successor named in Chinese.
        "苹果15的接班人什么时候出",
        "小米14的继任者电池多大",
        # A price expected to move.
        "小米14 价格还会跌吗",
        "小米14 价格有望下调吗",
        "小米14 降价空间大吗",
        # What an update will bring.
        "小米14新版本固件会提升续航吗",
        "小米14会通过更新支持wifi7吗",
        "after the update will the iphone 15 charge faster",
        "airpods pro 2 next firmware release date",
        "小米14 下个版本什么时候推",
        "xiaomi 14 hyperos 2 rollout date",
        # Long-term wear.
        "iphone 15 battery capacity after two years of use",
        "model 3 battery range after 100k miles",
        "model 3 battery degradation after 5 years",
        "iphone15用三年会卡吗",
        "三年后iphone15还流畅吗",
        "小米14后期会卡吗",
        "model 3 续航过几年剩多少",
        "iphone15 长期使用续航",
        "小米14 用久了续航怎么样",
        "xiaomi 14 battery in 3 years",
        "iphone 15 over time battery",
        "iphone15 等到秋天价格多少",
        "小米14 国庆价格",
        # How long it will be supported.
        "is the galaxy s24 eol soon",
        "does the xiaomi 14 have a roadmap for updates",
        "iphone15能用到2030年吗",
        "iphone15 ios更新支持到哪一年",
        "苹果15还能战几年",
        "小米14打算什么时候停更",
        "iphone 15 ios 19 compatibility",
        "iphone15 能用ios19吗",
        # A release, a shopping festival, a season, resale value.
        "when is the next airpods coming out",
        "xiaomi 14 new colours coming",
        "model 3 2026款 什么时候上市",
        "iphone 15 prime day price",
        "iphone 15 cyber monday price",
        "iphone 15 price by christmas",
        "would the model 3 hold its value",
        "model 3 保值吗",
    ],
)
def test_future_questions_are_predict(extractor: SemanticExtractor, question: str) -> None:
    assert _intent(extractor, question) == "predict", extractor.decide(question)


@pytest.mark.parametrize(
    "question",
    [
        # Present specs and store rules beside the new cues' words.
        "how long will the iphone 15 battery last",
        "iphone 15 ships with ios 17",
        "iphone15 出厂是ios几",
        "小米14保修一年后要钱吗",
        "can i return the iphone 15 after a month",
        "what colours does the xiaomi 14 come in",
        "model 3 range in km",
        "小米14价格多少",
        "iphone 15 battery capacity",
        "model 3 冬天续航多少",
        "iphone 15 battery life in hours",
    ],
)
def test_present_questions_keep_a_fingerprint(extractor: SemanticExtractor, question: str) -> None:
    assert isinstance(extractor.decide(question), Fingerprint), extractor.decide(question)


@pytest.mark.parametrize(
    "question",
    [
        "下半年换代的 MacBook Air M3 重量多少",  # 换代: the product's generation, no purchase
        "以后 Watch GT 4 有可能加入血压功能吗",
        "质保有没有可能改成三年",
        "Galaxy S24 会恢复充电器随盒吗",
    ],
)
def test_a_generation_change_or_a_possible_change_looks_ahead(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _intent(extractor, question) == "predict"


@pytest.mark.parametrize(
    "question",
    [
        "is One UI 7 coming to it, the Galaxy S24",
        "Model 3 的续航以后 OTA 一下能提升吗",
        "Apple Watch Series 9 还会上新表带颜色吗",
    ],
)
def test_an_update_coming_a_later_gain_or_new_stock_lines_look_ahead(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _intent(extractor, question) == "predict"


@pytest.mark.parametrize(
    "question",
    ["Galaxy S24 的售价能保持多久", "小米14 这个价格能维持多久"],
)
def test_how_long_a_price_holds_looks_ahead(extractor: SemanticExtractor, question: str) -> None:
    assert _intent(extractor, question) == "predict"


@pytest.mark.parametrize("question", ["galaxy s24 price cut soon?", "xiaomi 14 cheaper soon"])
def test_a_price_cut_soon_looks_ahead(extractor: SemanticExtractor, question: str) -> None:
    assert _intent(extractor, question) == "predict"


@pytest.mark.parametrize(
    "question", ["will you ever add cash on delivery", "do you plan to take PayPal at some point"]
)
def test_a_store_rule_changing_later_looks_ahead(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _intent(extractor, question) == "predict"
