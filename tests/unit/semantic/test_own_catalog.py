"""Bring your own catalog: another domain gets fingerprints without code changes, and
bad catalog files fail at load naming the file and the JSON path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from services.adapters.catalog_files import CatalogFileError, load_attributes, load_catalog
from services.cli import app
from services.core.semantic.extractor import SemanticExtractor
from services.core.semantic.fingerprint import Fingerprint
from services.semantic.loading import load_semantic_extractor

COFFEE_CATALOG = {
    "version": 1,
    "products": [
        {
            "id": "breville_barista_express",
            "category": "coffee_machine",
            "brand": "Breville",
            "names": {"zh": ["铂富咖啡机Barista Express"], "en": ["Breville Barista Express"]},
            "specs": {
                "price": {"value": 4999, "unit": "CNY"},
                "weight": {"value": 10.4, "unit": "kg"},
                "water_tank": {"value": 2, "unit": "L"},
            },
        },
        {
            "id": "delonghi_dedica",
            "category": "coffee_machine",
            "brand": "DeLonghi",
            "names": {"zh": ["德龙Dedica"], "en": ["DeLonghi Dedica", "Dedica EC685"]},
            "specs": {
                "price": {"value": 1899, "unit": "CNY"},
                "weight": {"value": 4.2, "unit": "kg"},
                "water_tank": {"value": 1.1, "unit": "L"},
            },
        },
        {
            "id": "nespresso_vertuo",
            "category": "coffee_machine",
            "brand": "Nespresso",
            "names": {"zh": ["奈斯派索Vertuo"], "en": ["Nespresso Vertuo"]},
            "specs": {
                "price": {"value": 1299, "unit": "CNY"},
                "weight": {"value": 4.0, "unit": "kg"},
                "water_tank": {"value": 1.1, "unit": "L"},
            },
        },
    ],
}
COFFEE_ATTRIBUTES = {
    "version": 1,
    "attributes": {
        "price": {
            "kind": "spec",
            "applies_to": ["coffee_machine"],
            "synonyms": {"zh": ["多少钱", "价格"], "en": ["price", "how much"]},
        },
        "weight": {
            "kind": "spec",
            "applies_to": ["coffee_machine"],
            "synonyms": {"zh": ["多重", "重量"], "en": ["weight", "how heavy"]},
        },
        "water_tank": {
            "kind": "spec",
            "applies_to": ["coffee_machine"],
            "synonyms": {"zh": ["水箱多大", "水箱容量"], "en": ["water tank", "tank size"]},
        },
        "warranty": {
            "kind": "policy",
            "applies_to": ["store", "coffee_machine"],
            "synonyms": {"zh": ["保修"], "en": ["warranty"]},
        },
    },
    "constraint_values": {},
}


def _write(directory: Path, catalog: object, attributes: object) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "catalog.json").write_text(json.dumps(catalog, ensure_ascii=False), "utf-8")
    (directory / "attributes.json").write_text(json.dumps(attributes, ensure_ascii=False), "utf-8")
    (directory / "policy.json").write_text(json.dumps({"store_policies": {}}), "utf-8")
    return directory


@pytest.fixture(scope="module")
def coffee_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("coffee"), COFFEE_CATALOG, COFFEE_ATTRIBUTES)


@pytest.fixture(scope="module")
def coffee_extractor(coffee_dir: Path) -> SemanticExtractor:
    """Loaded once (seconds): deciding a question changes nothing in it."""
    return load_semantic_extractor(coffee_dir)


@pytest.mark.parametrize(
    ("question", "product", "attribute"),
    [
        ("Breville Barista Express多少钱", "breville_barista_express", "price"),
        ("how heavy is the DeLonghi Dedica", "delonghi_dedica", "weight"),
        ("德龙Dedica水箱多大", "delonghi_dedica", "water_tank"),
        ("Nespresso Vertuo water tank size?", "nespresso_vertuo", "water_tank"),
        ("奈斯派索Vertuo保修", "nespresso_vertuo", "warranty"),
    ],
)
def test_a_coffee_catalog_gets_fingerprints_without_code_changes(
    coffee_extractor: SemanticExtractor, question: str, product: str, attribute: str
) -> None:
    decision = coffee_extractor.decide(question)
    assert isinstance(decision, Fingerprint), decision
    assert (decision.product, decision.attribute) == (product, attribute)


def test_catalog_check_passes_the_coffee_catalog(coffee_dir: Path) -> None:
    result = CliRunner().invoke(app, ["catalog", "check", str(coffee_dir)])
    assert result.exit_code == 0, result.output
    assert "0 problem(s)" in result.output


def test_catalog_check_reports_products_that_can_never_get_a_fingerprint(tmp_path: Path) -> None:
    catalog = json.loads(json.dumps(COFFEE_CATALOG))
    catalog["products"][1]["category"] = "grinder"  # no attribute applies to it
    catalog["products"][2]["names"] = {}
    attributes = json.loads(json.dumps(COFFEE_ATTRIBUTES))
    attributes["attributes"]["range"] = {
        "kind": "spec",
        "applies_to": ["car"],
        "synonyms": {"en": ["range"]},
    }
    result = CliRunner().invoke(
        app, ["catalog", "check", str(_write(tmp_path, catalog, attributes)), "--json"]
    )
    assert result.exit_code == 1
    report = json.loads(result.output)
    found = {(p["product"], p["problem"].split(" ")[0]) for p in report["problems"]}
    assert ("delonghi_dedica", "category") in found
    assert ("nespresso_vertuo", "has") in found
    assert (None, "applies") in found


@pytest.mark.parametrize(
    ("mutate", "file", "path"),
    [
        (lambda c, a: c["products"][0].pop("brand"), "catalog.json", "$.products[0]"),
        (
            lambda c, a: c["products"][2]["specs"]["price"].update(by=3),
            "catalog.json",
            "$.products[2].specs.price",
        ),
        (
            lambda c, a: a["attributes"]["price"].update(kind="fact"),
            "attributes.json",
            "$.attributes.price.kind",
        ),
    ],
)
def test_bad_catalog_files_fail_at_load_with_file_and_json_path(
    tmp_path: Path, mutate: object, file: str, path: str
) -> None:
    catalog = json.loads(json.dumps(COFFEE_CATALOG))
    attributes = json.loads(json.dumps(COFFEE_ATTRIBUTES))
    assert callable(mutate)
    mutate(catalog, attributes)
    directory = _write(tmp_path, catalog, attributes)
    with pytest.raises(CatalogFileError) as failure:
        load_catalog(directory)
        load_attributes(directory)
    assert failure.value.file.endswith(file)
    assert failure.value.json_path == path
