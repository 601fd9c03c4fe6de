"""The two definitions (definitions/*.json, flashinfer-bench Definitions) and their reference
implementations. The reference code lives as readable Python in definitions/reference/<name>.py;
the JSON's `reference` field is that file's text, kept in step by `gdnkit definitions --write`
and checked by the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Dict

from flashinfer_bench import Definition

from . import DEFINITION_NAMES
from .paths import definitions_dir


def definition_path(name: str) -> Path:
    return definitions_dir() / f"{name}.json"


def reference_path(name: str) -> Path:
    return definitions_dir() / "reference" / f"{name}.py"


def load_definition(name: str) -> Definition:
    if name not in DEFINITION_NAMES:
        raise ValueError(f"unknown definition {name!r}; known: {', '.join(DEFINITION_NAMES)}")
    return Definition.model_validate_json(definition_path(name).read_text())


def load_definitions() -> Dict[str, Definition]:
    return {name: load_definition(name) for name in DEFINITION_NAMES}


def reference_callable(definition: Definition) -> Callable:
    """The definition's reference `run`, compiled from its `reference` text."""
    namespace: dict = {}
    exec(compile(definition.reference, f"<reference {definition.name}>", "exec"), namespace)
    return namespace["run"]


def stale_references() -> list[str]:
    """Names whose JSON reference differs from definitions/reference/<name>.py."""
    return [name for name in DEFINITION_NAMES
            if load_definition(name).reference != reference_path(name).read_text()]


def write_references() -> list[str]:
    """Copy each reference file into its definition JSON; returns the names rewritten."""
    changed = []
    for name in stale_references():
        data = json.loads(definition_path(name).read_text())
        data["reference"] = reference_path(name).read_text()
        Definition.model_validate(data)
        definition_path(name).write_text(json.dumps(data, indent=2) + "\n")
        changed.append(name)
    return changed
