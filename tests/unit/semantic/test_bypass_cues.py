"""Bypass cues of several intents read in one question: relative time and use words,
situation clauses, compare words, recommendations, transaction and opinion wording, and
the cues that stay narrow enough to leave a spec question alone. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.admission import (
    CueContext,
    only_other_words,
)
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass, Fingerprint
from services.core.semantic.phrases import Hit
from tests.unit.semantic.decisions import cid_of
from tests.unit.semantic.decisions import decided_bypass as _intent
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("iPhone 15 price next month", "predict"),
        ("Model Y到时候多少钱", "predict"),
        ("iPhone 15 latest price", "realtime"),
        ("Model Y本周价格", "realtime"),
        ("我在用iPhone 15，续航多久", "personal"),
    ],
)
def test_relative_time_and_use_words_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


def test_a_duration_after_a_full_charge_stays_a_spec_question(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("iPhone 15充满电以后能用多久")
    assert not isinstance(decision, Bypass), decision


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("小米14 能不能升级澎湃OS", "predict"),
        ("华为Mate 60 能不能更新鸿蒙5", "predict"),
        ("我家里那部iPhone 15 屏幕多大", "personal"),
        ("我家那块Apple Watch S9 续航多久", "personal"),
    ],
)
def test_future_updates_and_first_person_devices_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent == intent, decision


def test_a_compare_word_inside_a_longer_vocabulary_phrase_is_not_a_comparison(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("If the price falls later, will you refund the difference?")
    assert not (isinstance(decision, Bypass) and decision.intent == "compare"), decision
    # Outside such a phrase the word still compares.
    other = extractor.decide("what's the difference between iPhone 15 and iPhone 16")
    assert isinstance(other, Bypass) and other.intent == "compare", other


@pytest.mark.parametrize(
    "text",
    [
        "我下个月要去旅游，苹果15的电池容量是多少",
        "我们公司停车位比较小，特斯拉Model Y的长宽高多少",
    ],
)
def test_a_situation_clause_carries_no_bypass(extractor: SemanticExtractor, text: str) -> None:
    assert isinstance(extractor.decide(text), Fingerprint)


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # The future is asked about in the product's own clause.
        ("我想问下，苹果15下个月会降价吗", "predict"),
        # Two things compared: 比较 is a verb here, not "fairly".
        ("比较一下，苹果15和苹果16的续航", "compare"),
        # A first-person clause with a personal cue still bypasses.
        ("我上个月买的订单，苹果15多少钱", "personal"),
    ],
)
def test_a_situation_clause_does_not_hide_a_real_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass)
    assert decision.intent == intent


def test_installment_account_and_future_change_wording(extractor: SemanticExtractor) -> None:
    assert cid_of(extractor.decide("花呗能分多少个月")) == "null|installment|"
    decision = extractor.decide("我账号下那台苹果15能开发票吗")
    assert isinstance(decision, Bypass) and decision.intent == "personal"
    decision = extractor.decide("特斯拉Model Y以后软件更新会增加续航吗")
    assert isinstance(decision, Bypass) and decision.intent == "predict"
    assert cid_of(extractor.decide("苹果15专业版多重")) == "iphone_15_pro|weight|"


@pytest.mark.parametrize(
    "question",
    [
        "小米14哪款颜色耐脏",
        "apple watch 9哪个表带好看",
        "华为gt4哪种配色最百搭",
        "which color looks best on the galaxy s24",
    ],
)
def test_which_one_looks_best_is_a_recommendation(
    extractor: SemanticExtractor, question: str
) -> None:
    assert _intent(extractor, question) == "recommend"


def test_a_compare_word_of_an_attribute_asked_otherwise_is_that_attributes_word() -> None:
    text = "if the price drops, is the difference refunded"
    asked = Hit("price_protection", 7, 18, "price drops")
    cue = Hit("compare", 27, 37, "difference")
    words = {"price_protection": frozenset({"refund", "the", "difference"})}
    context = CueContext(text, [asked], lambda: frozenset(), words)
    assert only_other_words([cue], context)
    # Without the attribute's phrase words, the word still compares.
    assert not only_other_words([cue], CueContext(text, [asked], lambda: frozenset()))


def test_price_protection_in_other_words_is_not_a_comparison(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("if the price drops after purchase, is the difference refunded")
    assert isinstance(decision, Fingerprint) and decision.attribute == "price_protection"


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # Two storages, neither ruled out, still compare.
        ("小米14 256g和512g多少钱", "compare"),
        # A recommendation phrased with a degree adverb stays a recommendation.
        ("小米14哪个颜色比较耐看", "recommend"),
    ],
)
def test_still_bypassed(extractor: SemanticExtractor, question: str, intent: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # An evaluative adjective asked of a which / what choice is an opinion.
        ("小米14啥配色最大气", "recommend"),
        ("苹果15什么颜色最百搭", "recommend"),
        ("what colour of the xiaomi 14 looks more elegant", "recommend"),
        # The asker's own transaction or account state.
        ("我那笔尾款多少", "personal"),
        ("我那个订单还没动静", "personal"),
        ("花呗分期还剩多少期没还", "personal"),
        ("how many instalments do i have left", "personal"),
        ("what's the balance on my payment plan", "personal"),
        # How many more years of updates: the future.
        ("小米14还能升几年系统", "predict"),
        ("三星S24还能升几个大版本", "predict"),
        ("how long does the galaxy s24 keep getting updates", "predict"),
        # The other side of the rules below (guards):
        # a relative's own things stay personal.
        ("my mum wants to know why her xiaomi 14 keeps freezing", "personal"),
        ("my sister is asking about her order", "personal"),
        ("my brother's galaxy s24 battery life", "personal"),
        ("她的小米14充不进电", "personal"),
        ("my son wants to send back the xiaomi 14 he bought", "personal"),
        ("my dad asks if you got his return yet", "personal"),
        # "now" beside an attribute that changes with the moment stays real-time.
        ("小米14现在卖多少", "realtime"),
        ("what colours does the xiaomi 14 come in right now", "realtime"),
        ("现在包邮吗", "realtime"),
        # 啥 is 什么 to every bypass phrase and pattern.
        ("苹果16啥时候降价", "predict"),
        # 会不会 with no water nearby, or with no damage verb, still asks the future.
        ("小米14摔了会不会坏", "predict"),
        ("苹果16会不会出新配色", "predict"),
        # Which one, with an attribute noun, and a comparative adjective.
        ("小米手机和苹果15哪个续航久", "compare"),
    ],
)
def test_evaluative_choices_transaction_state_and_relatives_bypass(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert _intent(extractor, question) == intent, extractor.decide(question)


@pytest.mark.parametrize(
    "question",
    [
        # One word of a concept group alone does not fire it.
        "is the galaxy s24 covered in glass",
        "分期最多能分几期",
    ],
)
def test_single_words_do_not_fire(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert not (isinstance(decision, Fingerprint) and decision.attribute == "warranty")
    assert not isinstance(decision, Bypass) or decision.intent != "personal"


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # A past event of the asker's own order, payment or delivery.
        ("my exchange still hasn't come, what now", "personal"),
        ("the parcel hasn't shipped yet, can you check", "personal"),
        ("i was double charged for the watch", "personal"),
        ("you billed me twice for shipping", "personal"),
        ("我下单后被扣了两次款", "personal"),
        ("我昨天支付了运费怎么还要付", "personal"),
        ("我试戴过的手表还能退货吗", "personal"),
        ("耳机收到了5天，我还能退吗", "personal"),
        ("你们给我开的发票抬头错了", "personal"),
        # ... and the asker's own delivery, in the past tense.
        ("the watch arrived damaged, do i get a new unit", "personal"),
        ("昨天付的款怎么还没发货", "personal"),
        # A size written before a name as its modifier that is not the product's own
        # names a model we do not sell.
        ("17寸的macbook air m3屏幕尺寸是多少", "unknown_product"),
        # An opinion asked of the assistant.
        ("which colour of the xiaomi 14 would you choose for my teenager", "recommend"),
        ("what storage would you go with on the galaxy s24", "recommend"),
    ],
)
def test_past_transactions_and_shop_assistant_opinions_bypass(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert _intent(extractor, question) == intent


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        ("xiaomi 14 price with a discount", "realtime"),
        ("小米14有没有折扣", "realtime"),
        ("what's the galaxy s24 price these days", "realtime"),
        ("给我老婆买的小米14能退吗", "personal"),
        ("给我老婆买了小米14，能退吗", "personal"),
    ],
)
def test_past_transaction_and_opinion_bypasses_kept(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert _intent(extractor, question) == intent


@pytest.mark.parametrize(
    ("question", "not_key"),
    [
        # A battery that goes down is no price drop.
        ("battery goes down fast on the xiaomi 14, can i get a refund", "null|price_protection|"),
        # 长宽比 is an aspect ratio, not the body's dimensions.
        ("小米14屏幕长宽比多少", "xiaomi_14|dimensions|"),
    ],
)
def test_past_transaction_and_opinion_cues_stay_narrow(
    extractor: SemanticExtractor, question: str, not_key: str | None
) -> None:
    key = _key(extractor, question)
    assert key != not_key
    assert key is None or not key.endswith("|dimensions|")


@pytest.mark.parametrize(
    ("question", "intent"),
    [
        # A relative's own device, purchase or order stays personal (guards).
        ("my uncle's galaxy s24 won't turn on, what do i do", "personal"),
        ("my sister has a xiaomi 14 and the screen flickers, is it covered?", "personal"),
        ("my mom ordered a mate 60 pro, when is the warranty up?", "personal"),
        ("my grandpa's phone got wet, does the warranty cover it?", "personal"),
        # Whether something is enough, which one to buy.
        ("小米14 256G够打游戏吗", "recommend"),
        ("华为GT4买46mm的好吗", "recommend"),
        # ... while "enough" after a value or a plain adjective stays a recommendation.
        ("is the galaxy s24 good enough for gaming?", "recommend"),
        ("is 512gb enough for the xiaomi 14?", "recommend"),
        # The progress of an application is the asker's own case.
        ("查一下价保申请的进度", "personal"),
        # A promotion gift is still real time (guard).
        ("any free gifts with the galaxy s24?", "realtime"),
    ],
)
def test_relatives_sufficiency_and_application_progress_bypass(
    extractor: SemanticExtractor, question: str, intent: str
) -> None:
    assert _intent(extractor, question) == intent


def test_can_is_no_sufficiency(extractor: SemanticExtractor) -> None:
    # 能够 is "can", not "enough".
    assert _intent(extractor, "小米14能够无线充电吗") is None


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("我老婆的苹果15保修多久", "personal"),
        ("我有一台MacBook Air M3，保修多久", "personal"),
        ("I have an iPhone 15, what's the warranty?", "personal"),
        ("my wife's iPhone 15 screen cracked, is it covered?", "personal"),
        ("Bought an iPhone 15 here last week, battery life is bad", "personal"),
        ("I'm using a Galaxy S24, how fast does it charge?", "personal"),
        ("前两天入了一台Mate 60，保修多久", "personal"),
        ("小米14会推送新系统吗", "predict"),
        ("Is the Mate 60 getting HarmonyOS 5?", "predict"),
        ("Does Apple plan to update the AirPods Pro 2 firmware?", "predict"),
    ],
)
def test_first_person_and_future_questions_bypass(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("苹果15近期价格", "realtime"),
        ("what's the current iPhone 15 price", "realtime"),
        ("Is the blue iPhone 15 available?", "realtime"),
        ("Is iOS 19 coming to the iPhone 15?", "predict"),
    ],
)
def test_everyday_realtime_and_future_wording(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == intent


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        # "is it better to …" asks advice.
        ("is it better to pay by credit card or with Huabei", "recommend"),
        ("would it be smarter to take the 512GB Galaxy S24", "recommend"),
        ("is it better for me to get the 45mm Apple Watch S9", "recommend"),
        # A shopping festival dates a price.
        ("小米14 黑色星期五 多少钱", "predict"),
        ("小米14 年货节 价格", "predict"),
        ("小米14 双12 多少钱", "predict"),
        # A price change asked is the price now.
        ("has the price of the xiaomi 14 dropped", "realtime"),
        ("did the price of the galaxy s24 change", "realtime"),
        ("小米14价格变了吗", "realtime"),
        # A used or refurbished item is priced by the market.
        ("小米14 二手 多少钱", "realtime"),
        ("refurbished galaxy s24 price", "realtime"),
        ("官翻的 S24 价格", "realtime"),
        # A price in another market is not the catalog's.
        ("galaxy s24 price in japan", "unknown_product"),
        ("xiaomi 14 uk price", "unknown_product"),
        ("小米14 香港多少钱", "unknown_product"),
        ("S24 美国价格", "unknown_product"),
    ],
)
def test_advice_dates_markets_and_price_changes(
    extractor: SemanticExtractor, text: str, intent: str
) -> None:
    assert _intent(extractor, text) == intent


@pytest.mark.parametrize(
    "text",
    [
        "Korean-market Galaxy S24 weight",
        "港版 iPhone 16 多少钱",
        "global edition Xiaomi 14 storage",
    ],
)
def test_a_version_for_another_market_is_not_in_the_catalog(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "unknown_product"
