"""Datasets: the contest manifest, synth, the embedded default, fetch (never the network)."""

import json
from collections import Counter

import pytest
import torch
from flashinfer_bench import TraceSet

from gdnkit import DECODE, PREFILL
from gdnkit import dataset as ds
from gdnkit.paths import contest_dir


def test_contest_manifest_has_the_contest_workloads():
    m = ds.load_manifest()
    assert len(m[DECODE]) == 54 and len(m[PREFILL]) == 100
    assert Counter(w["batch_size"] for w in m[DECODE]) == {1: 10, 4: 8, 8: 7, 16: 7, 32: 7, 48: 7, 64: 8}
    totals = [sum(w["seqlens"]) for w in m[PREFILL]]
    assert min(totals) == 6 and max(totals) == 8192 and sum(totals) == 183065
    assert sum(totals[i] == 8192 for i in range(100)) == 16
    assert sum(len(w["seqlens"]) for w in m[PREFILL]) == 797
    assert len({w["uuid"] for w in m[DECODE] + m[PREFILL]}) == 154


@pytest.mark.skipif(contest_dir() is None, reason="contest reference material not present")
def test_contest_manifest_matches_the_contest_folder():
    assert ds.manifest_from_contest(contest_dir()) == ds.load_manifest()


def test_synth_lists_all_contest_workloads(tmp_path):
    path = ds.synth(tmp_path / "mirror", blobs=False)
    ts = TraceSet.from_path(str(path))
    assert set(ts.definitions) == {DECODE, PREFILL}
    assert len(ts.workloads[DECODE]) == 54 and len(ts.workloads[PREFILL]) == 100
    manifest = ds.load_manifest()
    for name in (DECODE, PREFILL):
        got = [(t.workload.uuid, t.workload.axes) for t in ts.workloads[name]]
        want = [(w["uuid"], ds.workload_axes(name, w)) for w in manifest[name]]
        assert got == want


SMALL = {
    DECODE: [{"uuid": "00000000-0000-4000-8000-000000000001", "batch_size": 2}],
    PREFILL: [{"uuid": "00000000-0000-4000-8000-000000000002", "seqlens": [3, 0, 9]}],
}


def test_synth_writes_loadable_deterministic_inputs(tmp_path):
    a = ds.synth(tmp_path / "a", SMALL, seed=7)
    b = ds.synth(tmp_path / "b", SMALL, seed=7)
    c = ds.synth(tmp_path / "c", SMALL, seed=8)
    for name in (DECODE, PREFILL):
        rel = ds.blob_relpath(name, SMALL[name][0]["uuid"])
        assert (a / rel).read_bytes() == (b / rel).read_bytes()
        assert (a / rel).read_bytes() != (c / rel).read_bytes()
    ts = TraceSet.from_path(str(a))
    from flashinfer_bench.bench.utils import gen_inputs, load_safetensors

    wl = ts.workloads[PREFILL][0].workload
    inputs = gen_inputs(ts.definitions[PREFILL], wl, "cpu", load_safetensors(ts.definitions[PREFILL], wl, ts.root))
    q, k, v, state, A_log, a_, dt_bias, b_, cu, scale = inputs
    assert cu.tolist() == [0, 3, 3, 12] and cu.dtype == torch.int64
    assert q.shape == (12, 4, 128) and state.shape == (3, 8, 128, 128)
    torch.testing.assert_close(k.float().norm(dim=-1), torch.ones(12, 4), atol=1e-2, rtol=0)
    assert 0.005 < state.std() < 0.02 and 0.6 < q.float().std() < 1.0
    assert scale == pytest.approx(128 ** -0.5)


def test_embedded_dataset_is_built_once(tmp_path):
    path = ds.embedded_dataset(tmp_path / "embedded")
    ts = ds.open_dataset(path)
    assert len(ts.workloads[DECODE]) == 2 and len(ts.workloads[PREFILL]) == 3
    stamp = (path / ds.STAMP).stat().st_mtime_ns
    assert ds.embedded_dataset(tmp_path / "embedded") == path
    assert (path / ds.STAMP).stat().st_mtime_ns == stamp
    (path / ds.STAMP).write_text("{}")            # out of date -> rebuilt
    ds.embedded_dataset(tmp_path / "embedded")
    assert json.loads((path / ds.STAMP).read_text())["kind"] == "synthetic"


def test_open_dataset_refuses_missing_or_empty_folders(tmp_path):
    with pytest.raises(ds.DatasetError, match="does not exist"):
        ds.open_dataset(tmp_path / "nope")
    assert not (tmp_path / "nope").exists()
    (tmp_path / "empty").mkdir()
    with pytest.raises(ds.DatasetError, match="no workloads"):
        ds.open_dataset(tmp_path / "empty")


def test_fetch_offline_says_what_failed_and_what_to_do(tmp_path, monkeypatch):
    import huggingface_hub

    def offline(**kwargs):
        raise OSError("We couldn't connect to 'https://huggingface.co' (offline)")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", offline)
    with pytest.raises(ds.DatasetError) as info:
        ds.fetch(tmp_path / "contest")
    message = str(info.value)
    assert "flashinfer-ai/mlsys26-contest" in message and "couldn't connect" in message
    assert "--dataset" in message and "gdnkit synth" in message


def test_fetch_downloads_only_gdn_files(tmp_path, monkeypatch):
    import huggingface_hub

    calls = []

    def fake_hub(**kwargs):
        calls.append(kwargs)
        return str(ds.synth(kwargs["local_dir"], SMALL))   # a hub that serves a small dataset

    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake_hub)
    path = ds.fetch(tmp_path / "contest", revision="main")
    assert path == tmp_path / "contest"
    (call,) = calls
    assert call["repo_id"] == "flashinfer-ai/mlsys26-contest" and call["repo_type"] == "dataset"
    assert call["revision"] == "main"
    patterns = call["allow_patterns"]
    assert all(DECODE in p or PREFILL in p for p in patterns)
    from fnmatch import fnmatch

    wanted = [f"blob/workloads/gdn/{DECODE}/{DECODE}_x.safetensors", f"definitions/gdn/{PREFILL}.json",
              f"workloads/gdn/{PREFILL}.jsonl", f"solutions/baseline/gdn/{DECODE}/flashinfer_wrapper_9b7f1e.json"]
    assert all(any(fnmatch(f, p) for p in patterns) for f in wanted)
    assert not any(fnmatch("blob/workloads/moe/moe_x.safetensors", p) for p in patterns)


def test_fetch_refuses_a_download_without_gdn_workloads(tmp_path, monkeypatch):
    import huggingface_hub

    def empty_hub(**kwargs):
        (tmp_path / "contest").mkdir()
        return str(tmp_path / "contest")

    monkeypatch.setattr(huggingface_hub, "snapshot_download", empty_hub)
    with pytest.raises(ds.DatasetError, match="no workloads"):
        ds.fetch(tmp_path / "contest")
