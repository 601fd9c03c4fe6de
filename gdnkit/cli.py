"""The `gdnkit` command.

    gdnkit run          evaluate our solutions (config.toml) on a dataset: status, errors, latency
    gdnkit bench        ours and the FlashInfer baselines side by side -> traces/<run>/ and a report
    gdnkit report       report.md + plots from a run folder
    gdnkit compare      two run folders: our time changes, the baselines' drift, and the newer
                        kernel scored against the older run's baseline times
    gdnkit peers        our run folders beside the per-workload results other teams published
    gdnkit synth        write the synthetic mirror of the contest workloads
    gdnkit fetch        download the contest dataset (GDN files) from the Hugging Face hub
    gdnkit pack         config.toml -> dist/ (same as `python pack.py`)
    gdnkit definitions  check or rewrite the definitions' reference code from definitions/reference/
    gdnkit compile-check  compile the kernels for sm90 and sm100 (B200) without a GPU: registers,
                        spills, shared memory, CTAs per SM, known Blackwell miscompile patterns
                        (--shape/--batch/--knob: one input's launches with knobs changed)
    gdnkit routes       which prefill kernel each contest workload takes on sm90 and sm100, from the
                        shapes alone (--run: beside a run's latencies; --knob / --changed-by: what-if)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import List, Optional

from . import DEFINITION_NAMES


def _axes_text(axes: dict) -> str:
    if "batch_size" in axes:
        return f"B={axes['batch_size']}"
    return f"T={axes['total_seq_len']} N={axes['num_seqs']}"


def _prepare(args):
    """What `run` and `bench` share: the device (the Triton interpreter without a GPU, set up
    before any solution is built, since kernels read it when they are defined), the dataset,
    the evaluation settings and the --workload filter."""
    import torch

    from .dataset import open_dataset, resolve_dataset
    from .evaluate import Settings
    from .interpreter import enable_interpreter, install_interpreter_fixes

    on_gpu = torch.cuda.is_available() and not args.cpu
    if not on_gpu:
        enable_interpreter()
        install_interpreter_fixes()
    dataset = resolve_dataset(args.dataset)
    trace_set = open_dataset(dataset)
    settings = Settings(device="cuda" if on_gpu else "cpu", trials=args.trials)
    prefixes = tuple(args.workload or ())
    workload_filter = (lambda w: w.workload.uuid.startswith(prefixes)) if prefixes else None
    device = torch.cuda.get_device_name() if on_gpu else "CPU (Triton interpreter; timings need a GPU)"
    return dataset, trace_set, settings, workload_filter, device


def cmd_run(args) -> int:
    from .evaluate import evaluate
    from .runner import candidates

    dataset, trace_set, settings, workload_filter, device = _prepare(args)
    solutions = candidates([Path(args.config)])
    if args.definition:
        solutions = [c for c in solutions if c.solution.definition in args.definition]
    print(f"dataset {dataset}")
    print(f"device  {device}")
    header = f"{'solution':<28} {'workload':<10} {'axes':<16} {'status':<20} {'max_abs':>9} {'max_rel':>9} {'latency':>11}"
    print(header)
    print("-" * len(header))
    failures = 0

    def show(trace, outcome):
        nonlocal failures
        failures += outcome.status.value != "PASSED"
        lat = f"{outcome.latency_ms * 1e3:9.2f}us" if outcome.latency_ms is not None else f"{'-':>11}"
        print(f"{trace.solution:<28} {trace.workload.uuid[:8]:<10} {_axes_text(trace.workload.axes):<16} "
              f"{outcome.status.value:<20} {outcome.max_abs:9.2e} {outcome.max_rel:9.2e} {lat}", flush=True)
        if outcome.status.value != "PASSED" and args.verbose:
            print("    " + outcome.log.strip().replace("\n", "\n    "))

    traces = evaluate(trace_set, solutions, settings, workload_filter=workload_filter, on_result=show)
    print("-" * len(header))
    print(f"{len(traces) - failures}/{len(traces)} workloads passed")
    return 0 if traces and failures == 0 else 1


def cmd_bench(args) -> int:
    from .paths import project_root
    from .report import render
    from .runner import run_benchmark

    _, trace_set, settings, workload_filter, _ = _prepare(args)
    configs = [Path(c) for c in args.config] if args.config else None
    out = Path(args.out) if args.out else project_root() / "traces" / args.name
    run_benchmark(trace_set, out, configs, settings, definitions=args.definition,
                  workload_filter=workload_filter, dataset_label=args.dataset or "embedded")
    print(render(out))
    print(f"\nwrote {out}")
    return 0


def cmd_report(args) -> int:
    from .report import render

    text = render(Path(args.run))
    print(text)
    return 0


def cmd_compare(args) -> int:
    from .compare import compare_runs

    print(compare_runs(Path(args.before), Path(args.after), args.threshold, args.definition))
    return 0


def cmd_peers(args) -> int:
    from .paths import contest_dir
    from .peers import read_folder, render

    folder = Path(args.peers) if args.peers else (contest_dir() / "peer_results" if contest_dir() else None)
    if folder is None or not folder.is_dir():
        print("gdnkit peers: no peer results folder (pass --peers, or place the contest material at "
              "../shared/contest)", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else None
    text = render([Path(r) for r in args.run], read_folder(folder), plot_dir=out.parent if out else None)
    if out:
        out.write_text(text + "\n")
    print(text)
    return 0


def cmd_synth(args) -> int:
    from .dataset import EMBEDDED_MANIFEST, load_manifest, synth
    from .paths import datasets_dir

    manifest = load_manifest(EMBEDDED_MANIFEST if args.embedded else Path(args.manifest) if args.manifest else None) \
        if (args.embedded or args.manifest) else load_manifest()
    out = Path(args.out) if args.out else datasets_dir() / ("embedded" if args.embedded else "synthetic")
    defs = args.definition or DEFINITION_NAMES
    path = synth(out, manifest, seed=args.seed, definitions=defs,
                 progress=(lambda msg: print(f"\r{msg:<60}", end="", flush=True)))
    print(f"\nwrote {path}")
    if args.with_solutions:
        from .dataset import add_solutions
        from .runner import default_configs

        for written in add_solutions(path, default_configs()):
            print(f"wrote {written}")
    return 0


def cmd_fetch(args) -> int:
    from .dataset import fetch

    path = fetch(Path(args.out) if args.out else None, revision=args.revision)
    print(f"contest dataset in {path}")
    return 0


def cmd_pack(args) -> int:
    from .packing import pack

    archive = pack(Path(args.config), Path(args.out) if args.out else None)
    print(f"wrote {archive.parent}/ and {archive.name}")
    return 0


def cmd_definitions(args) -> int:
    from .definitions import stale_references, write_references

    if args.write:
        changed = write_references()
        print("rewrote " + ", ".join(changed) if changed else "definitions already match their reference files")
        return 0
    stale = stale_references()
    for name in stale:
        print(f"{name}: JSON reference differs from definitions/reference/{name}.py (run `gdnkit definitions --write`)")
    return 1 if stale else 0


def cmd_compile_check(args) -> int:
    from .compile_check import main as compile_check

    return compile_check(tuple(args.arch or ("sm90", "sm100")), args.json, args.knob or (), args.shape, args.batch,
                         args.loops, args.against)


def cmd_routes(args) -> int:
    from .routes import changed_rows, prefill_routes, render, run_latencies

    arches = tuple(args.arch or ("sm90", "sm100"))
    try:
        if args.changed_by:
            rows = changed_rows(arches, args.knob or (), args.changed_by)
            title = "Prefill routes that " + ", ".join(args.changed_by) + " changes"
        else:
            rows = prefill_routes(arches, args.knob or ())
            title = "Prefill routes" + (" with " + ", ".join(args.knob) if args.knob else "")
    except ValueError as exc:
        print(f"gdnkit routes: {exc}", file=sys.stderr)
        return 2
    print(render(rows, arches, run_latencies(Path(args.run)) if args.run else None, title), end="")
    return 0


def build_parser() -> argparse.ArgumentParser:
    from .paths import PROJECT_ROOT

    parser = argparse.ArgumentParser(prog="gdnkit", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("run", help="evaluate our solutions on a dataset")
    p.add_argument("--dataset", help="folder, or embedded (default) / synthetic / contest; env GDNKIT_DATASET")
    p.add_argument("--config", default=str(PROJECT_ROOT / "config.toml"))
    p.add_argument("--definition", action="append", choices=DEFINITION_NAMES, help="only this definition (repeatable)")
    p.add_argument("--workload", action="append", help="only workloads whose uuid starts with this (repeatable)")
    p.add_argument("--trials", type=int, default=None, help="correctness trials per workload (default 3 on GPU, 1 on CPU)")
    p.add_argument("--cpu", action="store_true", help="use the Triton interpreter even where a GPU exists")
    p.add_argument("-v", "--verbose", action="store_true", help="print the log of failing workloads")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("bench", help="our solutions and the FlashInfer baselines side by side -> traces/<name>/ + report")
    p.add_argument("--dataset", help="folder, or embedded (default) / synthetic / contest; env GDNKIT_DATASET")
    p.add_argument("--name", default="latest", help="run folder under traces/ (default latest)")
    p.add_argument("--out", help="run folder (overrides --name)")
    p.add_argument("--config", action="append", help="solution configs (default: config.toml and baselines/config.toml)")
    p.add_argument("--definition", action="append", choices=DEFINITION_NAMES)
    p.add_argument("--workload", action="append", help="only workloads whose uuid starts with this (repeatable)")
    p.add_argument("--trials", type=int, default=None, help="correctness trials per workload (default 3 on GPU, 1 on CPU)")
    p.add_argument("--cpu", action="store_true", help="use the Triton interpreter even where a GPU exists")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser("report", help="report.md + plots from a run folder")
    p.add_argument("run", help="run folder, e.g. traces/h200-synthetic")
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("compare", help="compare two run folders (ours, the baselines' drift, the cross score)")
    p.add_argument("before", help="older run folder, e.g. traces/h100-session26")
    p.add_argument("after", help="newer run folder")
    p.add_argument("--threshold", type=float, default=0.03,
                   help="list workloads whose time moved by more than this fraction (default 0.03)")
    p.add_argument("--definition", action="append", choices=DEFINITION_NAMES)
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("peers", help="our run folders beside the per-workload results other teams published")
    p.add_argument("run", nargs="+", help="run folders, e.g. traces/h200-session46 traces/h200-session46-decode")
    p.add_argument("--peers", help="folder of peer result files (default ../shared/contest/peer_results)")
    p.add_argument("--out", help="also write the Markdown here, and a plot per definition beside it")
    p.set_defaults(func=cmd_peers)

    p = sub.add_parser("synth", help="write a synthetic dataset mirroring the contest workloads")
    p.add_argument("--out", help="folder (default datasets/synthetic)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--definition", action="append", choices=DEFINITION_NAMES)
    p.add_argument("--manifest", help="workload manifest JSON (default: the contest's workloads)")
    p.add_argument("--embedded", action="store_true", help="the small embedded default instead")
    p.add_argument("--with-solutions", action="store_true",
                   help="also write our and the baseline solutions into solutions/ (for `flashinfer-bench run --local`)")
    p.set_defaults(func=cmd_synth)

    p = sub.add_parser("fetch", help="download the contest dataset's GDN files")
    p.add_argument("--out", help="folder (default datasets/contest)")
    p.add_argument("--revision", help="dataset revision (commit, branch or tag)")
    p.set_defaults(func=cmd_fetch)

    p = sub.add_parser("pack", help="build dist/ from config.toml")
    p.add_argument("--config", default=str(PROJECT_ROOT / "config.toml"))
    p.add_argument("--out", help="output folder (default: dist/ beside the config)")
    p.set_defaults(func=cmd_pack)

    p = sub.add_parser("definitions", help="check (default) or --write the definitions' reference code")
    p.add_argument("--write", action="store_true")
    p.set_defaults(func=cmd_definitions)

    p = sub.add_parser("compile-check", help="compile the kernels for sm90/sm100 without a GPU and report resources")
    p.add_argument("--arch", action="append", choices=["sm90", "sm100"], help="architecture (repeatable; default both)")
    p.add_argument("--json", help="also write the results as JSON here")
    p.add_argument("--knob", action="append", metavar="NAME=VALUE",
                   help="what-if: set a module-level knob of the kernel files first (repeatable)")
    p.add_argument("--shape", action="append", metavar="T/N",
                   help="what-if: only this prefill shape, T tokens in N sequences (repeatable)")
    p.add_argument("--batch", action="append", type=int, metavar="B",
                   help="what-if: only this decode batch size (repeatable)")
    p.add_argument("--loops", action="store_true",
                   help="also each configuration's loops from its SASS: size, address, cp.async or plain loads, spills, "
                        "fingerprints of their opcodes and schedule")
    p.add_argument("--against", metavar="JSON",
                   help="set each hot loop against an earlier run's --json: same schedule, same opcodes with a new "
                        "schedule, or new code (implies --loops)")
    p.set_defaults(func=cmd_compile_check)

    p = sub.add_parser("routes", help="which prefill kernel each contest workload takes, per architecture (no GPU)")
    p.add_argument("--arch", action="append", choices=["sm90", "sm100"], help="architecture (repeatable; default both)")
    p.add_argument("--run", help="a run folder (e.g. traces/h200-session53): our and the strict baseline's latencies")
    p.add_argument("--knob", action="append", metavar="NAME=VALUE", help="a knob of gdn_prefill set first (repeatable)")
    p.add_argument("--changed-by", action="append", metavar="NAME=VALUE",
                   help="only the workloads whose route these knobs change (repeatable)")
    p.set_defaults(func=cmd_routes)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    from .dataset import DatasetError
    from .packing import PackError

    args = build_parser().parse_args(argv)
    if getattr(args, "trials", 0) is None:
        import torch

        args.trials = 3 if torch.cuda.is_available() and not args.cpu else 1
    try:
        return args.func(args)
    except (DatasetError, PackError) as exc:
        print(f"gdnkit {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
