"""Pure core: canonical questions, answer language, product mentions, redacted text,
general tags, per-response identity."""

from __future__ import annotations

import json
import re

import pytest

from services.core.answer_language import answer_language, detect_language, requested_language
from services.core.cache_control import parse_cache_controls
from services.core.canonical_question import (
    QuestionVocabulary,
    VocabularyError,
    semantic_key_material,
)
from services.core.chat_request import InvalidRequest
from services.core.product_mentions import ProductNames
from services.core.redacted_text import for_extractor, for_upstream
from services.core.response_identity import (
    CompletionIds,
    completion_id,
    conform_completion,
    identified,
    stable_bytes,
    stable_etag,
    with_fresh_identity,
)
from services.core.semantic.fingerprint import Fingerprint
from services.core.tags import general_product, general_tags, parse_field
from services.gateway.settings import parse_tenant_answer_policies
from services.paths import DEMO_DATA_DIR

ATTRIBUTES = json.loads((DEMO_DATA_DIR / "attributes.json").read_text("utf-8"))
CATALOG = json.loads((DEMO_DATA_DIR / "catalog.json").read_text("utf-8"))
VOCABULARY = QuestionVocabulary.from_attributes_json(ATTRIBUTES)
BATTERY = Fingerprint("iphone_15", "battery_life", "query_spec", ())
VIDEO = Fingerprint("iphone_15", "battery_life", "query_spec", (("context", "video_playback"),))


def test_canonical_questions_come_from_the_vocabulary_in_each_language() -> None:
    assert VOCABULARY.render(BATTERY, "en", "iPhone 15") == "iPhone 15: battery life?"
    assert VOCABULARY.render(BATTERY, "zh", "苹果15") == "苹果15：续航？"
    assert (
        VOCABULARY.render(VIDEO, "en", "iPhone 15") == "iPhone 15 (video playback): battery life?"
    )
    assert VOCABULARY.render(VIDEO, "zh", "苹果15") == "苹果15（看视频）：续航？"


def test_every_attribute_and_constraint_value_renders_in_every_language() -> None:
    for attribute in ATTRIBUTES["attributes"]:
        for language in VOCABULARY.languages:
            assert VOCABULARY.attributes[attribute][language]
    for (key, value), words in VOCABULARY.values.items():
        assert set(words) == set(VOCABULARY.languages), (key, value)


def test_a_vocabulary_without_a_word_fails_at_load_naming_the_path() -> None:
    broken = {"attributes": {"weight": {"synonyms": {"en": ["weight"], "zh": []}}}}
    with pytest.raises(VocabularyError) as error:
        QuestionVocabulary.from_attributes_json(broken)
    assert error.value.path == "$.attributes.weight.synonyms.zh"


def test_the_semantic_key_holds_language_fingerprint_system_prompt_and_params() -> None:
    base = {"model": "m", "system_prompt": None, "params": {"temperature": 0}}
    forms = {
        semantic_key_material(**base, fingerprint=BATTERY, language="en"),
        semantic_key_material(**base, fingerprint=BATTERY, language="zh"),
        semantic_key_material(**base, fingerprint=VIDEO, language="en"),
        semantic_key_material(
            **{**base, "system_prompt": "Be brief."}, fingerprint=BATTERY, language="en"
        ),
        semantic_key_material(
            **{**base, "params": {"temperature": 0, "max_tokens": 1}},
            fingerprint=BATTERY,
            language="en",
        ),
    }
    assert len(forms) == 5


@pytest.mark.parametrize(
    ("text", "language"),
    [("苹果15电池能用多久", "zh"), ("iPhone 15 电池", "zh"), ("iPhone 15 battery life?", "en")],
)
def test_the_answer_language_is_detected_from_the_question(text: str, language: str) -> None:
    assert detect_language(text) == language


def test_content_language_overrides_and_is_validated() -> None:
    assert requested_language("zh-CN, en;q=0.5") == "zh"
    assert answer_language("iPhone 15 battery life?", requested_language("zh")) == "zh"
    assert requested_language(None) is None
    for bad in ("fr", "12"):
        with pytest.raises(InvalidRequest) as error:
            requested_language(bad)
        assert error.value.field == "header:content-language"


def test_products_named_longest_first_without_overlaps() -> None:
    names = ProductNames.from_catalog_json(CATALOG)
    assert names.named_in("iPhone 15 Pro和小米14哪个好") == ("iphone_15_pro", "xiaomi_14")
    assert names.named_in("how do I reset my password?") == ()


def test_placeholders_are_readable_upstream_and_invisible_to_the_extractor() -> None:
    text = "my phone is \x00cn_mobile\x00, iPhone 15 battery?"
    assert for_upstream(text) == "my phone is [cn_mobile], iPhone 15 battery?"
    assert for_extractor(text) == "my phone is , iPhone 15 battery?"
    assert for_upstream("plain") == "plain"


def test_general_tags_are_scoped_to_the_tenant_and_purgeable() -> None:
    tags = general_tags("tenant-a", "default", ("faq",))
    assert {str(t) for t in tags} == {
        "general.tenant-a/p",
        "general.tenant-a/n:default",
        "general.tenant-a/c:faq",
    }
    assert parse_field("general.tenant-a", "c:faq") in tags
    assert general_product("Tenant_With.UPPER") == "general.tenant_with.upper"
    assert general_product("x" * 64).startswith("general.") and len(general_product("x" * 64)) < 64


def test_client_tags_are_validated() -> None:
    controls = parse_cache_controls(None, None, None, min_ttl_s=1, max_ttl_s=9, tags="b, a a")
    assert controls.tags == ("a", "b")
    for bad in ("has{brace}", " ".join(f"t{i}" for i in range(17))):
        with pytest.raises(InvalidRequest) as error:
            parse_cache_controls(None, None, None, min_ttl_s=1, max_ttl_s=9, tags=bad)
        assert error.value.field == "header:x-cache-tags"


def test_each_serving_gets_its_own_identity_and_the_same_etag() -> None:
    stored = conform_completion(
        {
            "id": "a",
            "created": 1,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "x"}}],
        }
    )
    assert stored["choices"][0]["message"]["refusal"] is None
    one, two = with_fresh_identity(stored, 5), with_fresh_identity(stored, 6)
    assert one["id"] != two["id"] and one["id"].startswith("chatcmpl-")
    assert stable_etag(one) == stable_etag(two) == stable_etag(stored)


def test_a_stored_stable_part_is_served_with_a_fresh_identity_without_parsing() -> None:
    stable = stable_bytes({"id": "old", "created": 1, "object": "chat.completion", "choices": []})
    assert b"old" not in stable
    served = json.loads(identified(stable, 42))
    assert served["created"] == 42 and served["id"].startswith("chatcmpl-")
    assert served["object"] == "chat.completion" and served["choices"] == []
    assert json.loads(identified(b"{}", 7))["created"] == 7


def test_completion_ids_drawn_in_batches_are_fresh_and_shaped_like_single_ones() -> None:
    ids = CompletionIds(batch=4)
    drawn = [ids.next() for _ in range(10)]  # across two refills and a part
    assert len(set(drawn)) == 10
    assert all(re.fullmatch(r"chatcmpl-[0-9a-f]{24}", i) for i in drawn)
    assert re.fullmatch(r"chatcmpl-[0-9a-f]{24}", completion_id())
    served = json.loads(identified(b"{}", 7, drawn[0]))
    assert served["id"] == drawn[0]


def test_tenant_answer_policies_are_validated_naming_the_field() -> None:
    assert parse_tenant_answer_policies('{"t": {"answer_temperature": 0.2}}') == {
        "t": {"answer_temperature": 0.2}
    }
    assert parse_tenant_answer_policies("") == {}
    for bad, where in (
        ('{"t": {"answer_temperature": 3}}', "t.answer_temperature"),
        ('{"t": {"cache_sampled": 1}}', "t.cache_sampled"),
        ('{"t": {"colour": 1}}', "t.colour"),
    ):
        with pytest.raises(ValueError, match=where):
            parse_tenant_answer_policies(bad)
