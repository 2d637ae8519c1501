"""The asker's own device, order, purchase or document (possession, first-person past
wording, a relative's device, a relative clause naming the asker's unit) is personal,
while possession words alone beside a plain spec question are not. Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Bypass
from tests.unit.semantic.decisions import decided_bypass as _intent
from tests.unit.semantic.decisions import decided_cid as _key


@pytest.mark.parametrize(
    "text",
    [
        "我这台iPhone 15的电池容量",
        "我家小米14的续航",
        "俺的华为Mate 60多重",
        "my new MacBook Air M3 warranty",
        "what is the battery life of our old AirPods Pro 2",
    ],
)
def test_possession_without_history_is_personal(extractor: SemanticExtractor, text: str) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


def test_possession_words_alone_do_not_bypass_a_plain_spec_question(
    extractor: SemanticExtractor,
) -> None:
    decision = extractor.decide("iPhone 15 new model weight")
    assert not (isinstance(decision, Bypass) and decision.intent == "personal")


@pytest.mark.parametrize("text", ["我前天下的订单什么时候发货", "我上周下的单能退吗"])
def test_an_order_placed_at_a_past_time_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent == "personal", decision


@pytest.mark.parametrize(
    "text",
    ["上次开的发票能重开吗", "前几天申请的换货怎么样了", "我上个月办的以旧换新到哪一步了"],
)
def test_something_issued_for_the_asker_at_a_past_time_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    decision = extractor.decide(text)
    assert isinstance(decision, Bypass) and decision.intent == "personal", decision


@pytest.mark.parametrize(
    "question",
    [
        # The product named by a relative clause of what the asker did with it.
        "can i get a refund on the airpods pro 2 i unboxed this morning",
        "the galaxy s24 we activated last week, is it still covered",
        "the earbuds i wore twice, can you take them back",
        "the one we received, can it be exchanged",
        # What the asker did with it, and when.
        "i tried the apple watch series 9 a few days ago, can i return it",
        "我前天拆封的华为耳机能退吗",
        # The asker's order named by its measure word.
        "我这单苹果16的发票开了没",
    ],
)
def test_the_askers_own_unit_is_personal(extractor: SemanticExtractor, question: str) -> None:
    assert _intent(extractor, question) == "personal", extractor.decide(question)


def test_a_question_about_what_the_asker_asked_is_no_ownership(
    extractor: SemanticExtractor,
) -> None:
    # "the one I asked about" is no acquiring or using verb.
    assert _intent(extractor, "the phone i asked about, what colours does it come in") != "personal"


@pytest.mark.parametrize(
    "question",
    [
        "我之前的订单开错发票了怎么办",
        "我昨天的快递能改时间吗",
        "we paid a deposit on a tesla model 3, can we change the wheels",
        "i placed an order for the xiaomi 14, can i add a case",
    ],
)
def test_first_person_past_wording_is_personal(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


@pytest.mark.parametrize(
    "question",
    ["my wife's xiaomi 14 screen cracked", "is my husband's galaxy s24 still under warranty"],
)
def test_a_relative_s_device_stays_personal(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


@pytest.mark.parametrize(
    "question",
    [
        # Whose it is stays personal.
        "my sister's xiaomi 14 screen cracked",
        "can i get my old xiaomi 14 repaired here, how much",
        # A purchase clause beside a policy question: the policy is the asker's.
        "我买了个手机壳 小米14能退吗",
        # A personal clause with a number (an order) stays personal.
        "我的订单12345 小米14多重",
    ],
)
def test_still_personal(extractor: SemanticExtractor, question: str) -> None:
    decision = extractor.decide(question)
    assert isinstance(decision, Bypass), decision
    assert decision.intent == "personal"


@pytest.mark.parametrize(
    "text",
    [
        "which colour did we order on the Galaxy S24, can you check",  # the asker's own choice
        "was I charged for shipping on the MacBook Air M3",
        "please resend the Xiaomi 14 invoice",  # resending: an invoice already issued
        "Bought the Watch GT 4 for my run club, the strap is loose, exchange?",
        "the charger from yesterday's delivery is missing",
        "this order of two AirPods Pro 2, when does it ship",
        "it has been three weeks since the laptop came, is it still under warranty",
        "the Galaxy S24 payment got declined, which cards do you take",
    ],
)
def test_the_askers_own_order_in_english_without_my_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "personal"


@pytest.mark.parametrize(
    "text",
    [
        "签收的时候盒子就瘪了，里面的小米14能换吗",
        "AirPods Pro 2 这单发票能开公司抬头吗",
        "刚换完屏的 Galaxy S24 续航变差",
        "X1 Carbon 发热好严重，正常吗",
    ],
)
def test_the_askers_own_order_or_device_state_in_chinese_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "personal"


@pytest.mark.parametrize(
    "text",
    [
        "opened the box already, can the Xiaomi 14 still be returned?",
        "do I need to pay for shipping",
        "签收时发现破损可以拒收吗",
    ],
)
def test_policy_questions_about_any_order_are_not_the_askers_own(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) != "personal"


@pytest.mark.parametrize(
    "text",
    [
        "Galaxy S24 Ultra 摔了一下屏幕裂了，保修管吗",
        "MacBook Air M3 一直重启，能换新吗",
        "the Watch GT 4 stopped charging overnight, warranty?",
        "Xiaomi 14 keeps overheating, is that covered",
        "we've had the BYD Han for two years, what does the battery warranty cover",
    ],
)
def test_a_fault_of_a_named_product_or_years_of_having_it_is_the_askers_device(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "personal"


@pytest.mark.parametrize(
    ("text", "cid"),
    [
        ("如果 Galaxy S24 Ultra 屏幕碎了保修吗", "samsung_galaxy_s24_ultra|warranty|"),
        ("坏了去哪修", "null|after_sales_service|"),
    ],
)
def test_a_fault_supposed_or_of_no_product_is_a_policy_question(
    extractor: SemanticExtractor, text: str, cid: str
) -> None:
    assert _key(extractor, text) == cid


@pytest.mark.parametrize(
    "text",
    [
        "finally have the Galaxy S24 in hand, how fast does it charge",
        "been wearing the Watch GT 4 since June, is the strap replaceable under warranty",
        "proud owner of a BYD Han, what is its range",
        "as a MacBook Air M3 owner, how much does it weigh",
        "新入手的 AirPods Pro 2 续航多久",
    ],
)
def test_having_it_in_hand_using_it_for_a_while_or_owning_it_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "personal"


@pytest.mark.parametrize(
    "text",
    [
        "I filed a warranty claim for the Xiaomi 14 last week, how long does it take",
        "the exchange we requested on Monday, is there an update",
        "I opened a ticket about the invoice and haven't heard back",
        "修回来的 Watch GT 4 又坏了，保修还算吗",
        "退款一直没动静，我该怎么办",
    ],
)
def test_a_case_the_asker_started_or_a_problem_come_back_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "personal"


def test_opening_the_box_is_the_items_state_not_a_case(extractor: SemanticExtractor) -> None:
    assert _key(extractor, "if I opened the box can I still return it") == (
        "null|return_policy|item_state=opened"
    )


@pytest.mark.parametrize(
    "text",
    [
        "发票能补开吗？我姓李，抬头是某某有限公司",
        "which cards do you take? my Alipay keeps failing at checkout",
    ],
)
def test_a_surname_invoice_details_or_a_payment_failing_again_is_personal(
    extractor: SemanticExtractor, text: str
) -> None:
    assert _intent(extractor, text) == "personal"


@pytest.mark.parametrize("text", ["my 订单 when ship", "where is our 快递"])
def test_my_before_a_chinese_noun_is_the_askers(extractor: SemanticExtractor, text: str) -> None:
    assert _intent(extractor, text) == "personal"
