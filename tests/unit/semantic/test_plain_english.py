"""A word the English dictionary lacks that is plain English all the same (two everyday
words as one, a plural, an everyday word with one typo) is understood, unless it sits
near a word that carries meaning here (a name or variant word). Questions written for
these tests, not taken from any labelled set."""

from __future__ import annotations

from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import NoFingerprint
from services.core.semantic.spelling import PlainEnglish
from tests.unit.semantic.decisions import decided_cid

_ENGLISH = {"game": 50_000, "play": 90_000, "usually": 40_000, "timeline": 2_000, "plus": 60_000}


def test_plain_english_forms() -> None:
    plain = PlainEnglish(_ENGLISH, ["pro", "max"])
    assert plain.reads("gameplay")
    assert plain.reads("timelines")
    assert plain.reads("usualy")
    assert not plain.reads("promx")


def test_near_a_word_of_ours_it_stays_unknown() -> None:
    assert PlainEnglish(_ENGLISH, []).reads("plues")
    assert not PlainEnglish(_ENGLISH, ["plus"]).reads("plues")
    assert not PlainEnglish(_ENGLISH, ["play"]).reads("gameplay")


def test_questions(extractor: SemanticExtractor) -> None:
    assert decided_cid(extractor, "how long does shipping normaly take") == "null|delivery_time|"
    # plus is a variant the store does not sell: its typo is no English word here
    assert isinstance(extractor.decide("iphone 15 plues price"), NoFingerprint)
