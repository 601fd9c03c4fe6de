"""pytest -p shard_plugin with SHARD=k/n: keep every n-th collected test from the k-th (device runs)."""
import os


def pytest_collection_modifyitems(config, items):
    k, n = map(int, os.environ["SHARD"].split("/"))
    items[:] = [item for i, item in enumerate(items) if i % n == k]
