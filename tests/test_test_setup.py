"""The suite's own set-up in conftest.py: shards for several processes on one GPU machine, and
TRITON_INTERPRET kept per test."""

import os

import pytest

from conftest import interpreter_setting_kept, shard_of


def test_shards_partition_the_tests():
    items = [f"t{i}" for i in range(11)]
    shards = [shard_of(items, f"{k}/3") for k in range(3)]
    assert shards[0] == ["t0", "t3", "t6", "t9"] and shards[2] == ["t2", "t5", "t8"]
    assert sorted(sum(shards, []), key=lambda t: int(t[1:])) == items
    assert shard_of(items, None) == shard_of(items, "") == items


@pytest.mark.parametrize("shard", ["3/3", "-1/2", "1", "a/b", "1/0"])
def test_bad_shards_are_errors(shard):
    with pytest.raises(pytest.UsageError, match="GDNKIT_TEST_SHARD"):
        shard_of(["t0"], shard)


@pytest.mark.parametrize("before", [None, "0", "1"])
def test_interpreter_setting_is_restored(before, monkeypatch):
    if before is None:
        monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    else:
        monkeypatch.setenv("TRITON_INTERPRET", before)
    with interpreter_setting_kept():
        os.environ["TRITON_INTERPRET"] = "1" if before != "1" else "0"
    assert os.environ.get("TRITON_INTERPRET") == before
    with interpreter_setting_kept():
        os.environ.pop("TRITON_INTERPRET", None)
    assert os.environ.get("TRITON_INTERPRET") == before
