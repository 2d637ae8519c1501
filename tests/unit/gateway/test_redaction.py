"""Pure core: personal-data detection and redaction."""

from __future__ import annotations

import itertools
import json

import pytest

from services.core.redaction import HMM_BUDGET_CHARS, HMM_MAX_RUN, PiiKind, Redactor, placeholder
from services.gateway.bootstrap import load_redactor
from services.paths import DEMO_DATA_DIR


@pytest.fixture(scope="module")
def redactor() -> Redactor:
    return load_redactor()


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        ("身份证号11010519491231002X，帮我开发票", "11010519491231002X", PiiKind.CN_ID),
        ("手机号18612345678的账号登不上了", "18612345678", PiiKind.CN_MOBILE),
        ("call me on +86 138 1234 5678 please", "+86 138 1234 5678", PiiKind.CN_MOBILE),
        ("手机：１３８１２３４５６７８", "１３８１２３４５６７８", PiiKind.CN_MOBILE),
        ("座机010-12345678找我", "010-12345678", PiiKind.CN_LANDLINE),
        ("卡号 4111 1111 1111 1111 扣款了吗", "4111 1111 1111 1111", PiiKind.BANK_CARD),
        ("我的邮箱是zhangsan@example.com，把发票发过来", "zhangsan@example.com", PiiKind.EMAIL),
        ("我叫张伟，想问问保修", "张伟", PiiKind.PERSON),
        ("请联系李娜", "李娜", PiiKind.PERSON),
        ("Hi, my name is John Smith", "John Smith", PiiKind.PERSON),
        ("Please ask Mr. Brown about it", "Brown", PiiKind.PERSON),
        ("送到北京市朝阳区", "北京市", PiiKind.PLACE),
        ("地址是建国路88号", "建国路88号", PiiKind.PLACE),
    ],
)
def test_each_kind_is_found_and_removed(
    redactor: Redactor, text: str, secret: str, kind: PiiKind
) -> None:
    redaction = redactor.redact(text)
    assert kind in redaction.kinds
    assert secret not in redaction.text
    assert placeholder(kind) in redaction.text


@pytest.mark.parametrize(
    "text",
    [
        "身份证号110105194912310021",  # wrong check digit
        "卡号 4111 1111 1111 1112",  # fails Luhn
        "编号12345678901",  # not a mobile prefix
        "0755-1234567",  # Shenzhen numbers have 8 digits
        "iPhone 15 Pro Max 256GB 多少钱，5999还是6999",
        "Model Y长续航版续航多少公里",
        "谢谢",
        "AirPods Pro 3大概啥时候上市",
        "上海门店几点开门",
        "How long does the iPhone 15 battery last?",
    ],
)
def test_look_alikes_are_not_personal_data(redactor: Redactor, text: str) -> None:
    assert redactor.find(text) == ()


def test_no_cacheable_dev_question_is_flagged(redactor: Redactor) -> None:
    rows = [
        json.loads(line)
        for line in (DEMO_DATA_DIR / "queries_dev.jsonl").read_text("utf-8").splitlines()
        if line
    ]
    flagged = [r["text"] for r in rows if r["cacheable"] and redactor.find(r["text"])]
    assert flagged == []
    personal = [r for r in rows if r["intent"] == "personal"]
    assert any(redactor.find(r["text"]) for r in personal)


def test_findings_keep_positions_and_kinds_only(redactor: Redactor) -> None:
    text = "王小明的手机号是13812345678"
    findings = redactor.find(text)
    assert [f.kind for f in findings] == [PiiKind.PERSON, PiiKind.CN_MOBILE]
    assert [text[f.start : f.end] for f in findings] == ["王小明", "13812345678"]
    assert all(not hasattr(f, "value") for f in findings)


# -- bounded work: every check is linear in the text ------------------------------------


def test_the_hmm_sees_at_most_its_budget_of_characters(
    redactor: Redactor, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rare or unsegmentable characters once cost jieba's HMM up to 2.5 ms each (8 KB of
    them: 20 s on the event loop); now the HMM gets short runs within a budget."""
    pos = redactor._pos
    seen: list[int] = []
    original = pos.lcut

    def counting(text: str, HMM: bool = True) -> list[object]:
        if HMM:
            seen.append(len(text))
        return list(original(text, HMM=HMM))

    monkeypatch.setattr(pos, "lcut", counting)
    hostile = "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(6000)) + "王" * 3000
    redactor.redact(hostile + "，我叫张伟，想问问保修")
    assert seen and max(seen) <= HMM_MAX_RUN and sum(seen) <= HMM_BUDGET_CHARS


def test_a_name_after_an_unsegmentable_run_is_still_found(redactor: Redactor) -> None:
    assert redactor.redact("王" * 5000 + "，我叫张伟").kinds == {PiiKind.PERSON}


def test_many_findings_stay_sorted_and_disjoint(redactor: Redactor) -> None:
    text = " ".join(f"user{i}@example.com 13812345678" for i in range(2000))
    findings = redactor.redact(text).findings
    assert len(findings) == 4000
    assert all(a.end <= b.start for a, b in itertools.pairwise(findings))


def test_a_letter_run_before_an_at_sign_is_no_email(redactor: Redactor) -> None:
    assert not redactor.redact("a" * 20_000 + "@").found
    assert redactor.redact("x" * 100 + " a.b@qq.com").kinds == {PiiKind.EMAIL}


def test_characters_the_pos_model_lacks_never_reach_its_hmm(
    redactor: Redactor, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jieba.posseg
    from jieba.posseg.char_state_tab import P as known_characters

    seen: list[str] = []
    original = jieba.posseg.viterbi

    def recording(obs: str, *args: object) -> object:
        seen.append(obs)
        return original(obs, *args)

    monkeypatch.setattr(jieba.posseg, "viterbi", recording)
    rare = [chr(c) for c in range(0x4E00, 0x9FA5) if chr(c) not in known_characters][:6]
    redactor.redact("".join(rare[:3]) + "王建" + "".join(rare[3:]) + "，我叫张伟")
    assert seen and all(c in known_characters for text in seen for c in text)
