"""Round 9 (issue 15), predict: ways of asking about the future of a product or a
purchase that earlier cues missed (a successor, a price expected to fall, what an update
will bring, long-term wear, a support horizon, shopping festivals, a model year still to
come), and present spec questions that must stay cacheable beside them. Questions
written for these tests, not taken from any labelled set."""

from __future__ import annotations

import pytest

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from tests.unit.semantic.decisions import decided_bypass as _intent


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
