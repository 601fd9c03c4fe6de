"""Our definitions against the contest's (when ../shared/contest is present) and against
their own reference files."""

import json

import pytest
import torch

from gdnkit import DECODE, DEFINITION_NAMES, PREFILL
from gdnkit.definitions import definition_path, load_definition, reference_callable, stale_references
from gdnkit.inputs import decode_inputs, prefill_inputs, seeded_generator
from gdnkit.paths import contest_dir

CONTEST = contest_dir()
needs_contest = pytest.mark.skipif(CONTEST is None, reason="contest reference material (../shared/contest) not present")


def contest_definition(name):
    from flashinfer_bench import Definition

    return Definition.model_validate_json((CONTEST / "definitions" / f"{name}.json").read_text())


def test_json_reference_is_the_reference_file():
    assert stale_references() == []


@pytest.mark.parametrize("name", DEFINITION_NAMES)
def test_definition_loads_and_its_reference_defines_run(name):
    d = load_definition(name)
    assert d.name == name and d.op_type == "gdn"
    assert callable(reference_callable(d))


def _tensor_fields(specs):
    return [(n, s.shape, s.dtype) for n, s in specs.items()]


def _optional_inputs(path):
    # flashinfer-bench 0.1.2's TensorSpec drops `optional`, so read it from the JSON.
    return [k for k, v in json.loads(path.read_text())["inputs"].items() if v.get("optional")]


@needs_contest
@pytest.mark.parametrize("name", DEFINITION_NAMES)
def test_interface_matches_the_contest(name):
    ours, theirs = load_definition(name), contest_definition(name)
    assert ours.name == theirs.name
    assert ours.op_type == theirs.op_type
    assert {k: (a.type, getattr(a, "value", None)) for k, a in ours.axes.items()} == \
        {k: (a.type, getattr(a, "value", None)) for k, a in theirs.axes.items()}
    assert _tensor_fields(ours.inputs) == _tensor_fields(theirs.inputs)    # order included
    assert _tensor_fields(ours.outputs) == _tensor_fields(theirs.outputs)
    assert ours.constraints == theirs.constraints
    assert _optional_inputs(definition_path(name)) == _optional_inputs(CONTEST / "definitions" / f"{name}.json") == ["state"]


def _assert_same(ours, theirs):
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape
        # Both float32; they differ only in the order of operations (and, for the bf16
        # output, in an occasional rounding flip of one bf16 ulp).
        torch.testing.assert_close(a.float(), b.float(), atol=1e-5 if a.dtype == torch.float32 else 4e-3, rtol=1e-4)


@needs_contest
@pytest.mark.parametrize("with_state", [True, False])
def test_decode_reference_agrees_with_the_contest(with_state, fresh_seed):
    x = list(decode_inputs(3, seeded_generator(fresh_seed), with_state=with_state).values())
    _assert_same(reference_callable(load_definition(DECODE))(*x),
                 reference_callable(contest_definition(DECODE))(*x))


@needs_contest
@pytest.mark.parametrize("seqlens", [[1, 1, 65, 3], [5, 0, 35], [2, 9, 1, 0, 17]])
@pytest.mark.parametrize("with_state", [True, False])
def test_prefill_reference_agrees_with_the_contest(seqlens, with_state, fresh_seed):
    x = list(prefill_inputs(seqlens, seeded_generator(fresh_seed), with_state=with_state).values())
    _assert_same(reference_callable(load_definition(PREFILL))(*x),
                 reference_callable(contest_definition(PREFILL))(*x))
