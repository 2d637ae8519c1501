from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from services.core.semantic.admission import AdmissionPolicy, PolicyError
from services.core.semantic.extractor import SemanticExtractor
from services.semantic.loading import (
    ADMISSION_POLICY_FILE,
    LEXICON_FILE,
    PolicyFileError,
    SemanticData,
    build_extractor,
    load_admission_policy,
    load_lexicon,
)


def _write(tmp_path: Path, name: str, document: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


def _policy() -> dict[str, Any]:
    return json.loads(ADMISSION_POLICY_FILE.read_text(encoding="utf-8"))


def test_shipped_files_load() -> None:
    policy = load_admission_policy()
    assert policy.precedence[:6] == (
        "personal",
        "realtime",
        "predict",
        "compare",
        "recommend",
        "unknown_product",
    )
    assert "pixel" in policy.other_brands
    assert load_lexicon()["version"] == 1


def test_invalid_regex_names_file_and_json_path(tmp_path: Path) -> None:
    document = _policy()
    document["intents"]["compare"]["patterns"][1] = "(unclosed"
    path = _write(tmp_path, "admission_policy.json", document)
    with pytest.raises(PolicyFileError) as caught:
        load_admission_policy(path)
    assert caught.value.json_path == "$.intents.compare.patterns[1]"
    assert str(caught.value).startswith(f"{path}: $.intents.compare.patterns[1]: invalid regex")


def test_schema_violation_names_the_json_path(tmp_path: Path) -> None:
    document = _policy()
    document["intents"]["realtime"]["phrases"] = "today"  # must be a list
    path = _write(tmp_path, "admission_policy.json", document)
    with pytest.raises(PolicyFileError) as caught:
        load_admission_policy(path)
    assert caught.value.json_path == "$.intents.realtime.phrases"
    assert caught.value.path == path


def test_missing_intent_is_refused(tmp_path: Path) -> None:
    document = _policy()
    del document["intents"]["predict"]
    with pytest.raises(PolicyFileError) as caught:
        load_admission_policy(_write(tmp_path, "p.json", document))
    assert caught.value.json_path == "$.intents"


def test_precedence_must_put_bypass_intents_first() -> None:
    document = _policy()
    document["precedence"] = [
        "query_spec",
        *[i for i in document["precedence"] if i != "query_spec"],
    ]
    with pytest.raises(PolicyError) as caught:
        AdmissionPolicy.from_mapping(document)
    assert caught.value.json_path == "$.precedence"


def test_invalid_json_is_reported_with_the_file(tmp_path: Path) -> None:
    path = tmp_path / "admission_policy.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(PolicyFileError, match=r"admission_policy.json: \$: invalid JSON"):
        load_admission_policy(path)


def test_lexicon_regexes_are_checked(tmp_path: Path) -> None:
    document = json.loads(LEXICON_FILE.read_text(encoding="utf-8"))
    document["constraints"]["storage"]["hints"].append("[oops")
    index = len(document["constraints"]["storage"]["hints"]) - 1
    with pytest.raises(PolicyFileError) as caught:
        load_lexicon(_write(tmp_path, "semantic_lexicon.json", document))
    assert caught.value.json_path == f"$.constraints.storage.hints[{index}]"


def test_policy_precedence_decides_between_intents(
    semantic_data: SemanticData, extractor: SemanticExtractor
) -> None:
    # The same question is realtime under the shipped order (the session's shipped
    # extractor), compare when compare comes first (the same build, only the order moved).
    document = _policy()
    question = "iPhone 15和iPhone 16现在哪个便宜"
    assert getattr(extractor.decide(question), "intent", None) == "realtime"
    document["precedence"] = ["compare", *[i for i in document["precedence"] if i != "compare"]]
    reordered = build_extractor(
        dataclasses.replace(semantic_data, admission=AdmissionPolicy.from_mapping(document))
    )
    assert getattr(reordered.decide(question), "intent", None) == "compare"
