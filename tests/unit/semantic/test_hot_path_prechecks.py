"""Cheap first looks on the extractor's hot path that change no decision: the sound of a
name word is looked for in a run's pinyin only when some reading of its characters could
sound one, and a label's regex alternation holds only the patterns whose required
strings the text has. Each finds exactly what the full search finds."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

import services.core.semantic.transliteration as transliteration
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.phrases import PhraseSet
from services.core.semantic.transliteration import Transliterator
from services.paths import PACKAGE_DIR

_NAMES = ["MacBook Air", "AirPods Pro", "FreeBuds Pro", "ThinkPad X1 Carbon"]


def _transliterator() -> Transliterator:
    return Transliterator((), {}, names=_NAMES)


@pytest.mark.parametrize(
    ("text", "word"),
    [("麦克布克艾尔", "macbook"), ("艾尔泡兹普罗", "airpods"), ("飞巴兹", "freebuds")],
)
def test_a_run_that_sounds_a_name_is_read(text: str, word: str) -> None:
    reader = _transliterator()
    assert reader._may_sound_a_name(text)
    assert word in reader.replace(text)


@pytest.mark.parametrize("text", ["这个东西好不好用啊", "请问一下发货要多久", "屏幕是多大的"])
def test_a_run_no_reading_makes_a_name_is_never_converted(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    real = transliteration.lazy_pinyin

    def counted(run: str, **kwargs: Any) -> list[str]:
        calls.append(run)
        return real(run, **kwargs)

    monkeypatch.setattr(transliteration, "lazy_pinyin", counted)
    reader = _transliterator()
    assert reader.replace(text) == text
    assert calls == []


def _chinese_runs() -> Iterator[str]:
    blind = PACKAGE_DIR / "data" / "blind"
    for path in sorted(blind.glob("set*.jsonl"))[:12]:
        for line in path.read_text(encoding="utf-8").splitlines():
            yield from re.findall(r"[\u4e00-\u9fff]{3,}", json.loads(line)["text"])


def test_the_first_look_misses_no_name(extractor: SemanticExtractor) -> None:
    reader = extractor._normaliser._transliterator
    assert reader is not None
    runs = sorted(set(_chinese_runs()))
    assert len(runs) > 1000
    quick = [reader.replace(run) for run in runs]
    reader_type = type(reader)
    original = reader_type._may_sound_a_name
    try:
        reader_type._may_sound_a_name = lambda self, run: True  # type: ignore[method-assign]
        full = [reader.replace(run) for run in runs]
    finally:
        reader_type._may_sound_a_name = original  # type: ignore[method-assign]
    assert quick == full


_PERSONAL = [
    ("(^|, )i bought", "personal"),
    ("(^|, )my order", "personal"),
    ("(^|, )we received", "personal"),
    ("(^|, )my refund", "personal"),
]


def test_several_patterns_met_run_as_an_alternation_of_only_those() -> None:
    search = PhraseSet((), _PERSONAL)
    hits = search.find("hi, i bought it, my order is late", frozenset())
    assert [h.text for h in hits] == [", i bought", ", my order"]
    (group,) = search._groups
    assert list(group.subsets) == [(0, 1)]
    assert group.subsets[(0, 1)].pattern == "(?:(^|, )i bought)|(?:(^|, )my order)"


@pytest.mark.parametrize(
    "text",
    [
        "hi, i bought it, my order is late",
        "my refund, my order, we received it",
        "i bought, my refund",
        "nothing to see",
    ],
)
def test_the_subset_alternation_finds_what_the_whole_one_finds(text: str) -> None:
    search = PhraseSet((), _PERSONAL)
    whole = re.compile("|".join(f"(?:{p})" for p, _ in _PERSONAL))
    found = [(h.start, h.end) for h in search.find(text, frozenset())]
    assert found == [(m.start(), m.end()) for m in whole.finditer(text) if m.end() > m.start()]
