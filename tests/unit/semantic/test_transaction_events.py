"""A payment, refund, order or delivery event with a completed outcome (失败了, 扣了, 没到账, went
through, was charged) reports one of the asker's own transactions, with or without 我:
personal. The same words as a policy or a condition are not. Questions written for these
tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from tests.unit.semantic.decisions import decided_bypass, decided_cid


@pytest.mark.parametrize(
    "text",
    [
        "刚刚用微信支付失败了 能换个方式吗",
        "扣款成功了但是页面还显示待支付",
        "钱被扣了 可是订单一直没生成",
        "退款到现在还没到账",
        "用信用卡支付的时候被拒了",
        "刷卡付款老是失败 还有别的方式吗",
        "微信付不了了 换什么方式",
        "钱都付了 页面却显示未支付",
        "the payment went through but the page shows an error",
        "my card was charged twice for one order",
        "the refund hasn't arrived, which payment methods are faster",
        "the amount was debited yet there is no order",
        "checkout failed again, can I pay by card",
        "my payment kept getting declined, which wallets work",
        "结账失败了 能用别的方式付吗",
        "换货申请被驳回了 换货规则是怎样的",
        "已经提交退货了 退款几天到",
    ],
)
def test_a_transaction_outcome_reports_the_askers_own_event(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_bypass(extractor, text) == "personal"


@pytest.mark.parametrize(
    "text",
    ["你们支持哪些付款方式", "可以用信用卡支付吗", "which payment methods do you take"],
)
def test_a_payment_policy_question_is_not_an_event(extractor: SemanticExtractor, text: str) -> None:
    assert decided_bypass(extractor, text) is None
    assert decided_cid(extractor, text) == "null|payment_methods|"


@pytest.mark.parametrize("text", ["要是退款没到账该找谁", "支付失败了会不会扣钱"])
def test_a_conditional_outcome_is_not_an_event(extractor: SemanticExtractor, text: str) -> None:
    assert decided_bypass(extractor, text) != "personal"


@pytest.mark.parametrize(
    "text",
    [
        "包裹显示已送达，可家里没人收到 售后怎么处理",
        "快递显示派送了 但是我没拿到 退货规则是啥",
        "快递四天都没更新了 平时几天能到",
        "the tracking shows delivered but it never arrived, what is your return policy",
    ],
)
def test_a_delivery_status_the_asker_reads_is_their_own_event(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_bypass(extractor, text) == "personal"


@pytest.mark.parametrize(
    "text", ["签收以后几天内能退货", "如果快递没到该找谁", "退货申请提交后多久审核"]
)
def test_a_delivery_policy_or_condition_is_not_an_event(
    extractor: SemanticExtractor, text: str
) -> None:
    assert decided_bypass(extractor, text) != "personal"


@pytest.mark.parametrize(
    "question",
    ["收到四天了 小米14 能退吗", "买了两个月了 S24 还能换吗", "提车半年了 Model 3 保修多久"],
)
def test_time_elapsed_since_the_askers_own_purchase_is_personal(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_a_period_after_receipt_in_the_rules_stays_a_policy(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "收到后7天内可以退吗") == "null|return_policy|"


@pytest.mark.parametrize(
    "question",
    [
        "前天签收的货屏幕有划痕，怎么换",
        "收到的手表表带断了能退吗",
        "拿到的快递外包装破了还能七天无理由吗",
        "the watch that arrived this morning won't pair, can I return it",
    ],
)
def test_an_item_the_asker_received_is_their_order(
    extractor: SemanticExtractor, question: str
) -> None:
    assert decided_bypass(extractor, question) == "personal"


def test_receipt_in_a_policy_rule_is_no_event(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "签收后可以7天无理由退货吗") == "null|return_policy|"


@pytest.mark.parametrize(
    "question",
    [
        "has the exchange for the Watch GT 4 been approved yet",
        "the AirPods Pro 2 return got rejected, why",
    ],
)
def test_a_case_decided_is_the_askers_own(extractor: SemanticExtractor, question: str) -> None:
    assert decided_bypass(extractor, question) == "personal"
