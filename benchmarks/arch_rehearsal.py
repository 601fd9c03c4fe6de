"""The kernels another architecture would launch, run on this GPU. Every contest workload goes
through run() in each variant (gpu_check's syntax; by default "default;ARCH=sm100": as the kernel
files route on this GPU, and as they route on the contest's B200, through gpu_check's ARCH=...
pseudo-knob). Each call is checked against the definition's float32 reference with the contest's
rule (outputs poisoned with NaN first) and timed with the contest's method (CUPTI span, cold L2,
median of 5 or 50, mean of 3 trials), all variants in one process.

    python benchmarks/arch_rehearsal.py --out $OUT [--variants "default;ARCH=sm100"]
                                        [--workloads all|uuid,...] [--compile-jobs 15] [--no-decode]
    python benchmarks/arch_rehearsal.py --summarize $OUT/arch_rehearsal.json   (again, with anchors)

What it tells on the H200: whether every contest input is right on the paths the B200 takes (no
warp-role kernel, no split launches, no 64-column scan tiles, lean 64-token scans for many short
sequences), and what those paths cost here against the H200's own. What it cannot tell: how the
B200's code generation and memory system run them (everything compiles for this GPU). On a B200,
the same command with variants that turn the sm90-only paths on checks and times them there (the
README's "The B200's routing, run on the H200" gives the variants).
Writes arch_rehearsal.json to --out; prints a row per workload and a summary by route, with the
score against the FlashInfer anchors of ../shared/contest/h200_anchors.json where that file is
found (measured in another run: orientation only)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_check as gc  # noqa: E402  (the variant syntax, the contest's error rule, the prewarm)

from gdnkit import DECODE, PREFILL  # noqa: E402
from gdnkit.dataset import load_manifest  # noqa: E402
from gdnkit.definitions import load_definition, reference_callable  # noqa: E402
from gdnkit.inputs import decode_inputs, seeded_generator  # noqa: E402
from gdnkit.kernels import load_kernel_module  # noqa: E402
from gdnkit.paths import contest_dir  # noqa: E402
from gdnkit.routes import candidate_routes, route_tuning  # noqa: E402
from gdnkit.timing import time_call  # noqa: E402


def prefill_route(mod, total, num_seqs, device, has_state=True):
    """Which prefill kernel and configuration run() launches for these shapes: the kernel file's own
    routing (_route, the function run() itself follows, so the label follows its `_arch`) as recurrent,
    fused, warp-roles, or chunked-short / chunked-long with +split (two launches), +lean (two CTAs
    per SM) and +wide (64-column scan tiles). Where the first call measures candidates
    (ROUTE_TUNING_ARCHES): the one it kept, 'A (measured)', or before that call 'A/B (unmeasured)'."""
    candidates = candidate_routes(mod, total, num_seqs, device)
    if len(candidates) == 1:
        return candidates[0].label
    tuning = route_tuning(mod, total, num_seqs, has_state, device)
    if tuning is None:
        return "/".join(c.label for c in candidates) + " (unmeasured)"
    return f"{tuning.route.label} (measured)"


def check_and_time(run, args, out_index, want, warmup, iterations):
    """One call on NaN-poisoned outputs checked against `want` (output, new_state), then the mean
    of 3 trials of the contest's timing. Returns (errors of output, errors of new_state, µs, method)."""
    outputs = [args[out_index], args[out_index + 1]]
    for t in outputs:
        t.fill_(float("nan"))
    run(*args)
    torch.cuda.synchronize()
    # gpu_check's summary of the contest's rule (an element fails when off by more than 1e-2 both
    # absolutely and relatively) and whether every element is finite (no poison left)
    e_out, e_state = gc.errors(outputs[0], want[0]), gc.errors(outputs[1], want[1])
    trials = [time_call(run, args, warmup, iterations) for _ in range(3)]
    return e_out, e_state, sum(t[0] for t in trials) / 3 * 1e3, trials[0][1]


def variant_tags(variants):
    """A label per variant: its text ('default' for the file as it is), with ' #2', ' #3' on repeats
    (a variant run again last shows the machine's drift over the run)."""
    tags, seen = [], {}
    for variant in variants:
        label = variant or "default"
        seen[label] = seen.get(label, 0) + 1
        tags.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return tags


def passed(e_out, e_state):
    return e_out["fails"] == 0 and e_state["fails"] == 0 and e_out["finite"] and e_state["finite"]


def rehearse_prefill(variants, workloads, manifest, jobs):
    if jobs > 1:
        gc.prewarm(variants, [], workloads, True, jobs)
    reference = reference_callable(load_definition(PREFILL))
    mod = load_kernel_module("gdn_prefill")
    defaults = gc.knob_defaults(mod)
    device = torch.device("cuda")
    inputs, wants = {}, {}
    t0 = time.time()
    for uid in workloads:
        inputs[uid] = gc.workload_args(manifest[uid])
        wants[uid] = reference(*inputs[uid][:10])   # (output, new_state)
    torch.cuda.synchronize()
    print(f"prefill references in {time.time() - t0:.0f}s", flush=True)
    rows = {uid: {"uuid": manifest[uid]["uuid"], "total": sum(manifest[uid]["seqlens"]),
                  "num_seqs": len(manifest[uid]["seqlens"]), "longest": max(manifest[uid]["seqlens"], default=0)}
            for uid in workloads}
    for variant, tag in zip(variants, variant_tags(variants)):
        gc.apply_knobs(mod, variant, defaults)
        for uid in workloads:
            row = rows[uid]
            row[tag] = {}
            try:
                e_out, e_state, us, method = check_and_time(mod.run, inputs[uid], 10, wants[uid], 1, 5)
                row[tag].update(us=us, method=method, passed=passed(e_out, e_state), out=e_out, state=e_state)
            except Exception as exc:   # reported in the row, not fatal
                row[tag].update(error=f"{type(exc).__name__}: {exc}"[:1000], passed=False)
            # (after the first call, which measures the candidates where the architecture has them)
            has_state = inputs[uid][3] is not None
            row[tag]["route"] = prefill_route(mod, row["total"], row["num_seqs"], device, has_state)
            tuning = route_tuning(mod, row["total"], row["num_seqs"], has_state, device)
            if tuning is not None:
                row[tag]["tuning"] = {"times_us": [list(item) for item in tuning.times_us],
                                      "rejected": list(tuning.rejected)}
    return list(rows.values())


def rehearse_decode(variants, batches):
    reference = reference_callable(load_definition(DECODE))
    mod = load_kernel_module("gdn_decode")
    defaults = gc.knob_defaults(mod)
    device = torch.device("cuda")
    rows = []
    for batch in batches:
        x = decode_inputs(batch, seeded_generator(1, batch), device="cuda")
        out = torch.empty(batch, 1, 8, 128, dtype=torch.bfloat16, device="cuda")
        st = torch.empty(batch, 8, 128, 128, device="cuda")
        args = list(x.values()) + [out, st]
        want = reference(*args[:9])
        row = {"batch": batch}
        for variant, tag in zip(variants, variant_tags(variants)):
            gc.apply_knobs(mod, variant, defaults)
            e_out, e_state, us, method = check_and_time(mod.run, args, 9, want, 10, 50)
            row[tag] = {"tile": list(mod.tile_for(batch, device)), "us": us, "method": method,
                        "passed": passed(e_out, e_state), "out": e_out, "state": e_state}
        rows.append(row)
    return rows


def score(rows, tag, anchors, key):
    """Mean of anchor / ours over the rows with both, and the wins (the anchors were measured in
    another run: orientation only)."""
    ratios = [anchors[r["uuid"][:8]][key] / r[tag]["us"] for r in rows
              if anchors.get(r["uuid"][:8], {}).get(key) and r[tag].get("us")]
    return (sum(ratios) / len(ratios), sum(x > 1 for x in ratios), len(ratios)) if ratios else (math.nan, 0, 0)


def summarize(report, anchors):
    tags = report.get("variants") or ["default", f"ARCH={report['as_arch']}"]   # (session 45's first run)
    base = tags[0]
    for row in report.get("decode", []):
        print(f"decode B={row['batch']:3d}  " + "  ".join(
            f"{t}: tile {row[t]['tile']} {row[t]['us']:6.2f} µs{'' if row[t]['passed'] else ' FAILED'}" for t in tags))
    rows = report["prefill"]
    print(f"\n{'uuid':8} {'T':>5} {'N':>3} {'max':>5}  " + "  ".join(f"{t[:24] + ' route':<30} {'µs':>7}" for t in tags)
          + "  ratio to the first")
    for r in sorted(rows, key=lambda r: (r["total"], r["num_seqs"])):
        cells = "  ".join(f"{r[t]['route']:<30} {r[t].get('us', math.nan):7.2f}" for t in tags)
        ratios = " ".join(f"{r[t].get('us', math.nan) / r[base]['us']:5.3f}" if r[base].get("us") else "  nan"
                          for t in tags[1:])
        bad = [f"{t}: {r[t].get('error', 'FAILED')}"[:120] for t in tags if not r[t]["passed"]]
        print(f"{r['uuid'][:8]} {r['total']:5d} {r['num_seqs']:3d} {r['longest']:5d}  {cells}  {ratios}  {'; '.join(bad)}")
    print()
    for t in tags:
        worst = max((max(r[t]["out"]["tolerance_used"], r[t]["state"]["tolerance_used"]) for r in rows if "out" in r[t]),
                    default=math.nan)
        line = f"{t}: passed {sum(r[t]['passed'] for r in rows)}/{len(rows)}, worst element {worst:.3f} of the tolerance"
        if anchors:
            kernel, wins, n = score(rows, t, anchors, "flashinfer_kernel_us")
            wrapper = score(rows, t, anchors, "flashinfer_wrapper_us")[0]
            line += (f"; against the FlashInfer anchors (another run): kernel alone {kernel:.3f} ({wins}/{n} wins),"
                     f" as the contest calls it {wrapper:.2f}")
        print(line)
    for t in tags[1:]:
        by_route = {}
        for r in rows:
            if r[base]["route"] != r[t]["route"] and r[base].get("us") and r[t].get("us"):
                by_route.setdefault((r[base]["route"], r[t]["route"]), []).append(r[t]["us"] / r[base]["us"])
        print(f"\nwhere {t} routes differently from {base} (time ratio, {t} / {base}):")
        for (a, b), ratios in sorted(by_route.items()):
            print(f"  {a:<24} -> {b:<24} {len(ratios):3d} workloads, {min(ratios):.3f}-{max(ratios):.3f},"
                  f" mean {sum(ratios) / len(ratios):.3f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=".")
    ap.add_argument("--variants", default="default;ARCH=sm100",
                    help="gpu_check's variant syntax; the first is the one the others are compared with")
    ap.add_argument("--workloads", default="all", help="'all' or comma-separated prefill uuid prefixes")
    ap.add_argument("--compile-jobs", type=int, default=1, help="compile every variant on this many processes first")
    ap.add_argument("--no-decode", action="store_true")
    ap.add_argument("--summarize", metavar="JSON", help="print the summary of an earlier run's arch_rehearsal.json")
    args = ap.parse_args()
    anchors = {}
    if contest_dir():
        anchors = {a["uuid"][:8]: a for a in json.loads((contest_dir() / "h200_anchors.json").read_text()).get("prefill", [])}
    if args.summarize:
        report = json.loads(Path(args.summarize).read_text())
        summarize(report, anchors)
        return
    variants = gc.parse_variants(args.variants)
    if len(variants) < 2:
        raise SystemExit("--variants: at least two, the first to compare the others with")
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
              "variants": variant_tags(variants)}
    import triton

    report["triton"] = triton.__version__
    manifest = gc.prefill_manifest()
    workloads = list(manifest) if args.workloads == "all" else args.workloads.split(",")
    out = Path(args.out)
    if not args.no_decode:
        batches = sorted({int(w["batch_size"]) for w in load_manifest()[DECODE]})
        report["decode"] = rehearse_decode(variants, batches)
        (out / "arch_rehearsal.json").write_text(json.dumps(report, indent=1))
    report["prefill"] = rehearse_prefill(variants, workloads, manifest, args.compile_jobs)
    (out / "arch_rehearsal.json").write_text(json.dumps(report, indent=1))
    summarize(report, anchors)


if __name__ == "__main__":
    main()
