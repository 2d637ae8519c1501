"""Extractive answers: the asked attribute/variant, the product name, the spec version."""

from __future__ import annotations

import dataclasses
import json

import pytest

from services.core.catalog import ProductFacts
from services.core.prompt import PromptInputs, SopCatalog, build_prompt
from services.inference.engine.answer import (
    NO_FACTS_ANSWER,
    Vocabulary,
    compose_answer,
    parse_facts_blocks,
    render_spec,
)
from services.paths import DEMO_DATA_DIR


@pytest.fixture(scope="module")
def vocabulary() -> Vocabulary:
    raw = json.loads((DEMO_DATA_DIR / "attributes.json").read_text("utf-8"))
    return Vocabulary.from_attributes_json(raw)


def _answer(
    sop: SopCatalog,
    product: ProductFacts,
    question: str,
    attributes: tuple[str, ...],
    vocabulary: Vocabulary,
) -> str:
    template = sop.for_attribute(attributes[0]) if attributes else sop.generic
    prompt = build_prompt(
        PromptInputs(sop.system_prompt, template or sop.generic, question, (product,), attributes)
    )
    return compose_answer(prompt.openai_messages(), vocabulary)


def test_answer_names_product_value_and_spec_version(
    sop: SopCatalog, products: dict[str, ProductFacts], vocabulary: Vocabulary
) -> None:
    product = dataclasses.replace(products["iphone_15"], spec_version=3)
    answer = _answer(sop, product, "苹果15看视频能用多久", ("battery_life",), vocabulary)
    assert answer == "iPhone 15 — battery life: video playback: 20 h. (spec_version 3)"


def test_unconstrained_question_lists_every_variant(
    sop: SopCatalog, products: dict[str, ProductFacts], vocabulary: Vocabulary
) -> None:
    answer = _answer(sop, products["iphone_15"], "iPhone 15 多少钱", ("price",), vocabulary)
    assert "128GB: 5999 CNY" in answer and "512GB: 8999 CNY" in answer


def test_constraint_surface_form_selects_the_variant(
    sop: SopCatalog, products: dict[str, ProductFacts], vocabulary: Vocabulary
) -> None:
    answer = _answer(sop, products["iphone_15"], "ip15 256G多少钱", ("price",), vocabulary)
    assert "256GB: 6999 CNY" in answer and "128GB" not in answer


def test_answers_follow_the_facts_they_were_given(
    sop: SopCatalog, products: dict[str, ProductFacts], vocabulary: Vocabulary
) -> None:
    product = products["iphone_15"]
    updated = dataclasses.replace(
        product, spec_version=2, specs={**product.specs, "weight": {"value": 170, "unit": "g"}}
    )
    assert "171 g" in _answer(sop, product, "多重", ("weight",), vocabulary)
    new = _answer(sop, updated, "多重", ("weight",), vocabulary)
    assert "170 g" in new and "(spec_version 2)" in new


def test_with_all_specs_the_question_picks_the_attribute(
    sop: SopCatalog, products: dict[str, ProductFacts], vocabulary: Vocabulary
) -> None:
    answer = _answer(sop, products["xiaomi_14"], "小米14 刷新率多少", (), vocabulary)
    assert answer.startswith("Xiaomi 14 — refresh rate: ")


def test_no_facts_no_answer(vocabulary: Vocabulary) -> None:
    assert compose_answer([{"role": "user", "content": "hi"}], vocabulary) == NO_FACTS_ANSWER


def test_malformed_blocks_are_skipped() -> None:
    text = (
        '<facts product="p" spec_version="1">\n{not json\n</facts>\n'
        '<facts product="q" spec_version="4">\n{"name":"Q","specs":{}}\n</facts>'
    )
    (block,) = parse_facts_blocks(text)
    assert (block.product_id, block.spec_version, block.name) == ("q", 4, "Q")


@pytest.mark.parametrize(
    ("spec", "text"),
    [
        (
            {"value": [147.6, 71.6, 7.8], "unit": "mm", "note": "h x w x d"},
            "147.6 x 71.6 x 7.8 mm (h x w x d)",
        ),
        ({"value": ["Black", "Blue"]}, "Black, Blue"),
        ({"value": 20.0, "unit": "W"}, "20 W"),
        (
            {"default": "7-day return", "opened": "if undamaged"},
            "default: 7-day return; opened: if undamaged",
        ),
    ],
)
def test_render_spec_shapes(spec: object, text: str) -> None:
    assert render_spec(spec) == text
