"""gdnkit peers: our run folders beside peer result files, all written here with latencies chosen so that
every number in the comparison is known; and the real peer folder parsed where the contest material is."""

import csv
import json

import pytest

from gdnkit import DECODE, PREFILL
from gdnkit.cli import main
from gdnkit.paths import contest_dir
from gdnkit.peers import read_folder, read_timing_csv, render
from helpers import table_row

# A contest list of three decode workloads (batch 1, 1, 64) and two prefill ones (one sequence, three).
MANIFEST = {DECODE: [{"uuid": "d0000001", "batch_size": 1}, {"uuid": "d0000002", "batch_size": 1},
                     {"uuid": "d0000003", "batch_size": 64}],
            PREFILL: [{"uuid": "p0000001", "seqlens": [40]}, {"uuid": "p0000002", "seqlens": [10, 20, 30]}]}


def write_our_run(path, definition, ours_ms, base_ms, strict_ms=None):
    """A run folder of the runner's layout for one definition: {uuid: ms} per role."""
    (path / "gdn").mkdir(parents=True)
    roles = {"ours": "ours", "baseline": "fi"}
    if strict_ms:
        roles["strict_baseline"] = "fi_kernel"
    (path / "run.json").write_text(json.dumps({"environment": {"hardware": "NVIDIA H200"},
                                               "roles": {definition: roles}}))
    facts = {}
    for entry in MANIFEST[definition]:
        if definition == DECODE:
            facts[entry["uuid"]] = {"axes": {"batch_size": entry["batch_size"]}}
        else:
            s = entry["seqlens"]
            facts[entry["uuid"]] = {"seqlens": s, "axes": {"total_seq_len": sum(s), "num_seqs": len(s)}}
    (path / "workloads.json").write_text(json.dumps(facts))
    lines = [json.dumps({"definition": definition, "workload": {"uuid": u}, "solution": name,
                         "evaluation": {"status": "PASSED", "performance": {"latency_ms": ms}}})
             for name, times in (("ours", ours_ms), ("fi", base_ms), ("fi_kernel", strict_ms or {}))
             for u, ms in times.items()]
    (path / "gdn" / f"{definition}.jsonl").write_text("\n".join(lines) + "\n")
    return path


def write_peers(folder, timing_csv=True):
    """A trace JSONL (a GB200 entry, both definitions, one decode workload failed), a retained run with no
    GPU recorded (named for B200 in its file name) and a B200 timing CSV with a FlashInfer column."""
    folder.mkdir()
    traces = [(DECODE, "d0000001", "PASSED", 0.004), (DECODE, "d0000002", "INCORRECT_NUMERICAL", 0.001),
              (DECODE, "d0000003", "PASSED", 0.010), (PREFILL, "p0000001", "PASSED", 0.020),
              (PREFILL, "p0000002", "PASSED", 0.005)]
    (folder / "team_a_traces.jsonl").write_text("\n".join(json.dumps(
        {"definition": d, "workload": {"uuid": u}, "solution": "team-a-v1",
         "evaluation": {"status": st, "environment": {"hardware": "NVIDIA GB200"},
                        "performance": {"latency_ms": ms}}}) for d, u, st, ms in traces) + "\n")
    (folder / "team_b_decode_b200_retained_run.json").write_text(json.dumps({"results": {DECODE: {
        "d0000001": {"status": "PASSED", "latency_ms": 0.0025}, "d0000002": {"status": "PASSED", "latency_ms": 0.0025},
        "d0000003": {"status": "PASSED", "latency_ms": 0.012}}}}))
    if timing_csv:
        with open(folder / "fi-timing-b200.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["batch_size", "workload_idx", "fi_baseline_us", "ratio"])
            w.writerows([[1, 0, 3.0, 1], [1, 1, 5.0, 1], [64, 2, 12.0, 1]])
    return folder


@pytest.fixture
def runs(tmp_path):
    decode = write_our_run(tmp_path / "ours-decode", DECODE, {"d0000001": 0.002, "d0000002": 0.003, "d0000003": 0.018},
                           {"d0000001": 0.004, "d0000002": 0.003, "d0000003": 0.018})
    prefill = write_our_run(tmp_path / "ours-prefill", PREFILL, {"p0000001": 0.004, "p0000002": 0.010},
                            {"p0000001": 0.300, "p0000002": 0.300}, {"p0000001": 0.008, "p0000002": 0.012})
    return [prefill, decode]


def test_read_folder_formats_gpus_and_failures(tmp_path):
    peers = {(p.definition, p.entry): p for p in read_folder(write_peers(tmp_path / "peers"), MANIFEST)}
    a_decode = peers[(DECODE, "team-a-v1")]
    assert a_decode.gpu == "GB200"
    assert a_decode.latency_ms == {"d0000001": 0.004, "d0000003": 0.010} and a_decode.failed == ["d0000002"]
    assert peers[(PREFILL, "team-a-v1")].latency_ms == {"p0000001": 0.020, "p0000002": 0.005}
    b = peers[(DECODE, "team_b_decode_b200_retained_run")]
    assert b.gpu == "B200" and not b.is_flashinfer and len(b.latency_ms) == 3
    fi = peers[(DECODE, "FlashInfer")]
    assert fi.gpu == "B200" and fi.is_flashinfer
    assert fi.latency_ms == pytest.approx({"d0000001": 0.003, "d0000002": 0.005, "d0000003": 0.012})
    assert (DECODE, "ratio") not in peers   # only the _us columns are timings


def test_timing_csv_rejects_a_row_that_is_not_the_listed_workload(tmp_path):
    path = tmp_path / "timing-b200.csv"
    path.write_text("batch_size,workload_idx,fi_baseline_us\n64,0,3.0\n")
    with pytest.raises(ValueError, match="does not match"):
        read_timing_csv(path, MANIFEST)


def test_render_tables(tmp_path, runs):
    text = render(runs, read_folder(write_peers(tmp_path / "peers"), MANIFEST))
    decode, prefill = text.split(f"## {PREFILL}")
    # Entry table: the GB200 entry passed 2 of 3; ours (2, 18 µs) against its (4, 10): faster on one.
    assert table_row(decode, "team-a-v1") == ["team-a-v1", "GB200", "2/3", "7.00", "7.00", "10.00", "1/2"]
    assert table_row(decode, "team_b_decode_b200_retained_run")[1:] == ["B200", "3/3", "5.67", "2.50", "7.67", "1/3"]
    # By batch: ours, FlashInfer of our run, then each source in folder order (fi csv, team a, team b).
    assert table_row(decode, "B=1") == ["B=1", "2", "2.50", "3.50", "4.00", "4.00", "2.50"]
    # Speedups on each kernel's own GPU: ours against our run's FlashInfer, team b (B200) against the B200
    # FlashInfer column; the GB200 entry has no FlashInfer of its GPU, so no column.
    speedup = decode.split("Speedup over FlashInfer")[1]
    assert "team-a-v1 against" not in speedup
    assert table_row(speedup, "B=1") == ["B=1", f"{(2 + 1) / 2:.3f}", f"{(3 / 2.5 + 5 / 2.5) / 2:.3f}"]
    assert table_row(speedup, "**all**")[1:] == [f"{(2 + 1 + 1) / 3:.3f}", f"{(1.2 + 2 + 1) / 3:.3f}"]
    assert "Ours not faster than team_b_decode_b200_retained_run on: `d0000003` (B=64) 18.00 / 12.00 µs" in decode
    # Prefill: one single-sequence workload (40 tokens: ours 4, theirs 20), kernel-alone column present.
    assert table_row(prefill, "team-a-v1 (GB200)") == ["team-a-v1 (GB200)", "4.00", "20.00", "1/1"]
    assert table_row(prefill, "1-64") == ["1-64", "2", "7.00", "300.00", "10.00", "12.50"]   # 40 and 60 tokens
    assert "`p0000002` (T=60, N=3, max 30) 10.00 / 5.00 µs" in prefill


def test_cli_writes_the_markdown(tmp_path, runs, capsys):
    # The command reads the contest's workload list, which the timing CSV above does not index.
    out = tmp_path / "peers.md"
    peers = write_peers(tmp_path / "peers", timing_csv=False)
    assert main(["peers", *map(str, runs), "--peers", str(peers), "--out", str(out)]) == 0
    assert out.read_text().startswith("# Our kernels beside published GDN entries")
    assert "team-a-v1" in capsys.readouterr().out
    assert main(["peers", str(runs[0]), "--peers", str(tmp_path / "missing")]) == 2
    try:   # a latency-vs-size plot per definition beside the Markdown, linked from it
        import matplotlib  # noqa: F401
    except ImportError:
        return
    for definition in (DECODE, PREFILL):
        png = tmp_path / f"peers_{definition}.png"
        assert png.stat().st_size > 0 and f"]({png.name})" in out.read_text()


@pytest.mark.skipif(contest_dir() is None or not (contest_dir() / "peer_results").is_dir(),
                    reason="needs the contest material (../shared/contest/peer_results)")
def test_real_peer_results_parse():
    peers = read_folder(contest_dir() / "peer_results")
    by_gpu = {}
    for p in peers:
        assert p.gpu in ("B200", "GB200"), p.source
        assert len(p.latency_ms) + len(p.failed) == (54 if p.definition == DECODE else 100), p.source
        by_gpu.setdefault(p.gpu, []).append(p)
    # The FlashInfer decode timings on the B200 exist, so B200 entries get speedups on their own GPU.
    assert any(p.is_flashinfer and p.definition == DECODE for p in by_gpu["B200"])
