"""`gdnkit routes`: the prefill kernel each contest workload takes per architecture, from the kernel
file's own routing (gdnkit/routes.py), with knobs and beside a committed run's latencies."""

import pytest

from gdnkit import PREFILL
from gdnkit.cli import main
from gdnkit.paths import project_root
from gdnkit.routes import changed_rows, prefill_routes, render, run_latencies

SMALL = {PREFILL: [{"uuid": "b" * 36, "seqlens": [914, 20, 20, 5]}, {"uuid": "a" * 36, "seqlens": [974, 9]},
                   {"uuid": "c" * 36, "seqlens": [30]}]}


def test_routes_follow_the_kernel_file_per_architecture():
    rows = prefill_routes(("sm90", "sm100"), manifest=SMALL)
    assert [(r["total"], r["num_seqs"], r["longest"]) for r in rows] == [(30, 1, 30), (959, 4, 914), (983, 2, 974)]
    by_total = {r["total"]: r for r in rows}
    assert by_total[983]["sm90"] == "chunked-long+split" and by_total[983]["sm100"] == "chunked-long/chunked-long+split"
    assert by_total[959]["sm90"] == "chunked-long"      # four sequences stay in one launch
    assert by_total[30]["sm90"] == "warp-roles" and by_total[30]["sm100"] == "chunked-short/warp-roles"


def test_routes_with_a_knob_and_what_it_changes():
    rows = prefill_routes(("sm90",), ["CHUNKED_SPLIT_FEW_SEQS=0"], manifest=SMALL)
    assert {r["total"]: r["sm90"] for r in rows}[983] == "chunked-long"
    with pytest.raises(ValueError, match="not a knob"):
        prefill_routes(("sm90",), ["NO_SUCH_KNOB=1"], manifest=SMALL)
    with pytest.raises(ValueError):
        prefill_routes(("sm90",), ["CHUNKED_SPLIT_FEW_SEQS=three"], manifest=SMALL)
    # On the contest manifest, the few-sequence split takes exactly its two- and three-sequence inputs of
    # 896-1023 tokens.
    changed = changed_rows(("sm90", "sm100"), (), ["CHUNKED_SPLIT_FEW_SEQS=0"])
    assert changed and all(896 <= r["total"] < 1024 and r["num_seqs"] in (2, 3) for r in changed)
    assert all(r["sm90"] == "chunked-long+split -> chunked-long"
               and r["sm100"] == "chunked-long/chunked-long+split -> chunked-long" for r in changed)


def test_routes_beside_a_committed_run(capsys):
    run = project_root() / "traces" / "h200-session53"
    lat = run_latencies(run)
    assert len(lat["ours"]) == 100 and len(lat["strict_baseline"]) == 100
    rows = prefill_routes(("sm90",))
    text = render(rows, ("sm90",), lat)
    assert len(rows) == 100 and text.count("\n| `") == 100 and "| chunked-long+split+wide |" in text
    assert main(["routes", "--arch", "sm90", "--run", str(run)]) == 0
    assert "strict baseline (µs)" in capsys.readouterr().out
    assert main(["routes", "--knob", "NO_SUCH_KNOB=1"]) == 2
