"""One GPU session in one script: correctness of both kernels against the float64 oracle on
long, ragged and adversarial shapes for every prefill tiling/precision variant, then latency
(official method when flashinfer + cupti-python are importable: CUPTI span, cold L2, median,
mean of 3 trials) of every variant on representative contest workloads (synthetic inputs).

    python benchmarks/gpu_check.py --out $OUT [--quick] [--compile-jobs 14]
    python benchmarks/gpu_check.py --summarize $OUT/gpu_check.json     # the A/B table again, no GPU

Writes gpu_check.json to --out and prints tables; the last, where a variant ran more than once (rounds:
"--prefill-variants 'A;B;A;B'"), is each variant's mean over its rounds per workload and its difference
from the first variant's, with the rounds' range. The FlashInfer columns are the anchors
measured earlier on this H200 (../shared/contest/h200_anchors.json), shown for orientation only:
a speed claim needs both sides timed in the same run (gdnkit's runner)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from gdnkit import PREFILL
from gdnkit.dataset import load_manifest
from gdnkit.inputs import decode_inputs, prefill_inputs, seeded_generator
from gdnkit.kernels import knob_value, load_kernel_module
from gdnkit.oracle import decode_as_prefill, gdn_recurrence_f64
from gdnkit.paths import contest_dir
from gdnkit.timing import time_call

# A variant is a set of module-level knobs of the kernel file: "KNOB=value,KNOB=value".
PREFILL_VARIANTS = [
    "FUSED_MAX_TOKENS=1000000",                     # everything through the fused kernel
    # everything through the chunked kernel (prep + scan), with 16-token chunks, then 64
    "FUSED_MAX_TOKENS=0,FUSED_MANY_SEQS_MAX_TOKENS=0,CHUNKED_SHORT_MAX_TOKENS=1000000",
    "FUSED_MAX_TOKENS=0,FUSED_MANY_SEQS_MAX_TOKENS=0,CHUNKED_SHORT_MAX_TOKENS=0",
]
WORKLOADS = ["77daf91d", "f622a11d", "d8f4a9ae", "f203fdcd", "49ef89d2", "a0eb2dc2", "ba08a83e",
             "d5aa60dc", "ce832e76", "c5257f65", "aaa378be", "6f1ad833", "4b6143dd", "d49df0b2",
             "5d3fc66a"]
DECODE_BATCHES = [1, 4, 8, 16, 32, 48, 64]
DECODE_VARIANTS = [""]   # "": the kernel file's own table


def parse_variants(text):
    """'A=1,B=tf32;A=2;default' -> ['A=1,B=tf32', 'A=2', ''] ('default': the file's own knobs)"""
    return ["" if item == "default" else item for item in text.split(";") if item]


def apply_knobs(module, variant, defaults):
    """Set the module's knobs to `defaults` (their values at import), then those of `variant`.
    TILE=BVxWxSEQ[xLOG[xLOADxSTORE[xPREFETCH_V]]] sets the decode tile table to one row for every batch
    size (LOG: 1 for the hardware log, default 0; LOAD and STORE the state's L2 eviction policy, first,
    last or -, default -; PREFETCH_V 1 to ask L2 for v first thing, default 0). ARCH=sm100 makes the
    kernel file route as on that architecture (its `_arch` answers sm100 for every device): the kernels
    another GPU would launch, run on this one, its first-call measurements included (ROUTE_TUNING_ARCHES;
    every variant starts with none kept)."""
    for name, value in defaults.items():
        setattr(module, name, value)
    if hasattr(module, "_ROUTE_TUNINGS"):   # each variant measures its own (ROUTE_TUNING_ARCHES)
        module._ROUTE_TUNINGS.clear()
    for name in dir(module):   # drop compiled variants so compiled_stats sees this variant's only
        for cache in getattr(getattr(module, name), "device_caches", {}).values():
            cache[0].clear()
    for item in filter(None, variant.split(",")):
        name, value = item.split("=")
        if name == "ARCH":
            if not hasattr(module, "_arch"):
                raise ValueError("ARCH: the kernel file has no _arch to route by")
            module._arch = fixed_arch(value)
            continue
        if name == "TILE":   # BVxWARPSxSEQUENTIAL[xHARDWARE_LOG[xLOADxSTORE[xPREFETCH_V]]] for every batch size
            module.TILE_TABLE = {arch: [(1 << 62, *decode_tile(value))] for arch in ("sm90", "sm100", "default")}
            continue
        setattr(module, name, knob_value(name, getattr(module, name), value))


EVICTION_CODES = {"-": "", "first": "evict_first", "last": "evict_last"}


def decode_tile(text):
    """'4x1x0x1xfirstxlastx1' -> (4, 1, False, True, 'evict_first', 'evict_last', True): a decode TILE_TABLE row
    without its batch bound (LOG 0, both eviction policies '-', the default, and no v prefetch when left out)."""
    fields = text.split("x")
    if len(fields) not in (3, 4, 6, 7):
        raise ValueError(f"TILE: BVxWARPSxSEQUENTIAL[xLOG[xLOADxSTORE[xPREFETCH_V]]], not {text!r}")
    bv, nw, seq, log = ([int(x) for x in fields[:4]] + [0])[:4]
    evictions = fields[4:6] or ["-", "-"]
    if any(e not in EVICTION_CODES for e in evictions):
        raise ValueError(f"TILE: eviction policies are {', '.join(EVICTION_CODES)}, not {evictions}")
    prefetch_v = bool(int(fields[6])) if len(fields) == 7 else False
    return (bv, nw, bool(seq), bool(log), *(EVICTION_CODES[e] for e in evictions), prefetch_v)


def fixed_arch(arch):
    """An `_arch(device)` for the kernel files that names `arch` whatever the device (ARCH=...)."""
    if arch not in ("sm90", "sm100", "default"):
        raise ValueError(f"ARCH: sm90, sm100 or default, not {arch!r}")

    def _arch(device):
        return arch
    return _arch


def compiled_stats(module):
    """Registers, spills and shared memory of every compiled variant of the module's kernels."""
    stats = []
    for name in dir(module):
        fn = getattr(module, name)
        for cache in getattr(fn, "device_caches", {}).values():
            for kernel in cache[0].values():
                meta = getattr(kernel, "metadata", None)
                stats.append({"kernel": name, "regs": getattr(kernel, "n_regs", None),
                              "spills": getattr(kernel, "n_spills", None),
                              "shared": getattr(meta, "shared", None), "warps": getattr(meta, "num_warps", None)})
    return stats


def host_overhead_us(fn, args, calls=200):
    """Host time per call with the GPU left to run behind (no sync inside the loop)."""
    fn(*args)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    t1 = time.perf_counter()
    torch.cuda.synchronize()
    return (t1 - t0) / calls * 1e6


def knob_defaults(module):
    """The module's knobs as imported: its upper-case names, and `_arch` (which ARCH=... replaces)."""
    names = [n for n in dir(module) if (n.isupper() and not n.startswith("_"))
             or n == "_arch"]
    return {n: getattr(module, n) for n in names}


def errors(got, want):
    got, want = got.double().cpu(), want.double().cpu()
    finite = torch.isfinite(got)
    err = torch.where(finite, (got - want).abs(), float("inf"))
    # contest rule: an element fails when both |err| > 1e-2 and |err| / |want| > 1e-2, and every
    # non-finite one fails (an element left unwritten keeps the NaN it was poisoned with)
    fails = int(((err > 1e-2) & (err > 1e-2 * want.abs())).sum())
    # share of the allowance used by the worst element (1.0 = on the edge of failing)
    usage = float((err / torch.clamp(1e-2 * want.abs(), min=1e-2)).max())
    return {"max_abs": float(err.max()), "fails": fails, "tolerance_used": usage,
            "finite": bool(finite.all())}


def prefill_manifest():
    """The contest's prefill workloads by uuid prefix (synthetic splits)."""
    return {w["uuid"][:8]: w for w in load_manifest()[PREFILL]}


def resolve_workload(manifest, name):
    """A workload to time: a uuid prefix of the manifest, or `len` and sequence lengths joined by `-`
    (len45-1: two sequences of 45 and 1 tokens; its inputs seeded from the name), added to the manifest."""
    if name not in manifest and name.startswith("len"):
        manifest[name] = {"uuid": name, "seqlens": [int(n) for n in name[3:].split("-")]}
    return manifest[name]


def workload_args(workload):
    """run()'s arguments for a prefill manifest workload on the GPU: its synthetic inputs (seed 0,
    as the dataset's) and empty output and new_state."""
    x = prefill_inputs(workload["seqlens"], seeded_generator(0, workload["uuid"]), device="cuda")
    total, num_seqs = x["q"].shape[0], x["cu_seqlens"].shape[0] - 1
    return list(x.values()) + [torch.empty(total, 8, 128, dtype=torch.bfloat16, device="cuda"),
                               torch.empty(num_seqs, 8, 128, 128, device="cuda")]


def run_prefill(mod, x):
    T, N = x["q"].shape[0], x["cu_seqlens"].shape[0] - 1
    out = torch.full((T, 8, 128), float("nan"), dtype=torch.bfloat16, device="cuda")
    st = torch.full((N, 8, 128, 128), float("nan"), device="cuda")
    mod.run(*x.values(), out, st)
    torch.cuda.synchronize()
    return out, st


def hard_case(seed, length=300):
    gen = seeded_generator(seed, "hard")
    x = prefill_inputs([length], gen)
    base = torch.randn(1, 4, 128, generator=gen)
    x["k"] = torch.nn.functional.normalize(base + 0.15 * torch.randn(length, 4, 128, generator=gen), dim=-1).bfloat16()
    x["b"] = (3.0 + torch.randn(length, 8, generator=gen)).bfloat16()
    x["a"] = (2.0 * torch.randn(length, 8, generator=gen)).bfloat16()
    x["A_log"] = torch.randn(8, generator=gen)
    return x


def slow_decay_case(seed):
    """Gates near 1 (A_log = -5: g about 0.995 per token), so the state remembers hundreds of
    tokens and rounding in the state products can accumulate."""
    x = prefill_inputs([4096], seeded_generator(seed, "slow"))
    x["A_log"] = torch.full((8,), -5.0)
    return x


def prefill_cases(manifest, quick):
    """The prefill correctness cases (CPU tensors), by name."""
    cases = {
        "single-8192": prefill_inputs([8192], seeded_generator(2, "long")),
        "64x1": prefill_inputs([1] * 64, seeded_generator(2, "ones")),
        "hard-300": hard_case(2),
        # small inputs, for the kernels of the smallest ones (fused, recurrent): adversarial, and
        # ragged with an empty and a one-token sequence
        "hard-32": hard_case(3, 32),
        "ragged-30": prefill_inputs([1, 0, 13, 16], seeded_generator(2, "ragged")),
        # at most 6 tokens, or 8 in three sequences or more: the recurrent kernel (adversarial; ragged with
        # sequences ending inside its blocks)
        "hard-6": hard_case(3, 6),
        "ragged-8": prefill_inputs([1, 0, 5, 2], seeded_generator(2, "ragged-8")),
        # one chunk, adversarial: the warp-role kernel on sm90 (from 7 tokens), the fused kernel elsewhere
        "hard-12": hard_case(3, 12),
        # two sequences of 17-64 tokens in all, no state: the warp-role kernel on sm90 (cu_seqlens bounds)
        "two-38-9-no-state": dict(prefill_inputs([38, 9], seeded_generator(2, "two"), with_state=False)),
        # one sequence of three or four chunks of its own (a head token at 49), adversarial, and one without a
        # state: the warp-role kernel on sm90, one solver and one slot a chunk
        "hard-49": hard_case(3, 49),
        "hard-61": hard_case(3, 61),
        "single-40-no-state": dict(prefill_inputs([40], seeded_generator(2, "single-40"), with_state=False)),
        # more chunks than the warp-role kernel's solvers: one sequence (two slots a solver, adversarial)
        # and two sequences (one slot a solver, reused)
        "hard-200": hard_case(3, 200),
        "two-90-41": prefill_inputs([90, 41], seeded_generator(2, "two-long")),
        # three sequences of at most 128 tokens (the warp-role kernel on sm90), out of length order, one of
        # them empty, and two of equal length
        "three-45-0-30": prefill_inputs([45, 0, 30], seeded_generator(2, "three-empty")),
        "three-20-31-20": prefill_inputs([20, 31, 20], seeded_generator(2, "three-ties")),
        # past 256 tokens, slots reused: two sequences (the warp-role kernel on sm90), three and four
        # (the short-chunk configuration; the warp-role kernel where its sequence caps are raised)
        "two-59-282": prefill_inputs([59, 282], seeded_generator(2, "two-282")),
        "three-90-115-34": prefill_inputs([90, 115, 34], seeded_generator(2, "three")),
        "four-233-85-19-64": prefill_inputs([233, 85, 19, 64], seeded_generator(2, "four")),
        "slow-decay-4096": slow_decay_case(2),
        "5d3fc66a": prefill_inputs(manifest["5d3fc66a"]["seqlens"], seeded_generator(0, manifest["5d3fc66a"]["uuid"])),
        # 56 sequences of up to 1445 tokens: every scan tile width of the 64-token configuration
        "06f21bb1": prefill_inputs(manifest["06f21bb1"]["seqlens"], seeded_generator(0, manifest["06f21bb1"]["uuid"])),
        # a sequence of over half the tokens in the middle of the batch, beside an empty and a one-token one:
        # ranked split launches with 64-column tiles, the long sequence's narrow tiles from transition records
        "dominant-middle": prefill_inputs([300, 0, 5000, 17, 1], seeded_generator(2, "dominant-middle")),
        # 1800 tokens in 3 sequences (1432 the longest): transition records, several sequences below 3584
        "aaa378be": prefill_inputs(manifest["aaa378be"]["seqlens"], seeded_generator(0, manifest["aaa378be"]["uuid"])),
    }
    if quick:
        cases.pop("single-8192")
    return cases


_WORKER = {}   # a prewarm worker process's kernel module, its knob defaults, manifest and cases


def _prewarm_one(job):
    """Compile one (variant, case or workload) in this worker process by running it once."""
    variant, kind, name, quick = job
    if not _WORKER:
        _WORKER["mod"] = load_kernel_module("gdn_prefill")
        _WORKER["defaults"] = knob_defaults(_WORKER["mod"])
        _WORKER["manifest"] = prefill_manifest()
        _WORKER["cases"] = prefill_cases(_WORKER["manifest"], quick)
    mod = _WORKER["mod"]
    apply_knobs(mod, variant, _WORKER["defaults"])
    if kind == "case":
        x = _WORKER["cases"][name]
        run_prefill(mod, {k: (v.cuda() if isinstance(v, torch.Tensor) else v) for k, v in x.items()})
    else:
        mod.run(*workload_args(resolve_workload(_WORKER["manifest"], name)))
        torch.cuda.synchronize()
    return job


def prewarm(variants, case_names, workloads, quick, jobs):
    """Compile every (variant, input) on `jobs` worker processes before timing: Triton's disk cache
    then serves the timed process. One process compiles one kernel at a time, and a recurrent
    kernel unrolled over 32 tokens takes ptxas about 12 s."""
    import concurrent.futures
    import multiprocessing

    work = [(v, "case", n, quick) for v in dict.fromkeys(variants) for n in case_names]
    work += [(v, "workload", u, quick) for v in dict.fromkeys(variants) for u in workloads]
    t0 = time.time()
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
        for fut in concurrent.futures.as_completed([pool.submit(_prewarm_one, w) for w in work]):
            if fut.exception() is not None:   # reported again, with its variant, by the timed pass
                print(f"prewarm: {fut.exception()!r}"[:300], flush=True)
    print(f"prewarm: {len(work)} runs on {jobs} processes in {time.time() - t0:.0f}s", flush=True)


def ab_summary(variants, workloads, labels=None):
    """Markdown table of prefill latencies (µs) from gpu_check.json's "prefill" entries: per workload (named
    by `labels` where given), the first variant's mean over its rounds (an entry per round, the same tag)
    with the rounds' range, and each other variant's mean minus that, with its own range. Variants in the
    order they first ran; a variant that failed to run has no latencies and is left out."""
    tags, rounds = [], {}
    for entry in variants:
        if entry.get("error") or not entry.get("latency_us"):
            continue
        if entry["variant"] not in rounds:
            tags.append(entry["variant"])
            rounds[entry["variant"]] = []
        rounds[entry["variant"]].append(entry["latency_us"])
    if not tags:
        return ""

    def stats(tag, uid):
        xs = [r[uid] for r in rounds[tag] if uid in r]
        return (sum(xs) / len(xs), min(xs), max(xs)) if xs else None

    names = [t or "default" for t in tags]
    lines = ["| workload | " + f"{names[0]} (µs) | " + " | ".join(f"{n} (diff)" for n in names[1:]) + " |",
             "|---" * (len(tags) + 1) + "|"]
    for uid in workloads:
        base = stats(tags[0], uid)
        if base is None:
            continue
        cells = [f"{base[0]:.2f} ({base[1]:.2f}-{base[2]:.2f})"]
        for tag in tags[1:]:
            x = stats(tag, uid)
            cells.append("-" if x is None else f"{x[0] - base[0]:+.2f} ({x[1]:.2f}-{x[2]:.2f})")
        lines.append(f"| {(labels or {}).get(uid, uid)} | " + " | ".join(cells) + " |")
    counts = ", ".join(f"{n} {len(rounds[t])}" for n, t in zip(names, tags))
    return "\n".join(lines) + f"\n(rounds: {counts})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".")
    ap.add_argument("--summarize", metavar="GPU_CHECK_JSON",
                    help="print the A/B table of an earlier run's gpu_check.json and exit (no GPU)")
    ap.add_argument("--quick", action="store_true", help="skip the 8192-token single-sequence check")
    ap.add_argument("--prefill-variants", help="KNOB=v,KNOB=v;... (default: PREFILL_VARIANTS)")
    ap.add_argument("--decode-variants",
                    help="TILE=BVxWxSEQ[xLOG[xLOADxSTORE[xPREFETCH_V]]];default;... (default: DECODE_VARIANTS)")
    ap.add_argument("--no-decode", action="store_true")
    ap.add_argument("--no-prefill", action="store_true")
    ap.add_argument("--compile-jobs", type=int, default=1,
                    help="compile every prefill variant on this many processes before timing (1: off)")
    ap.add_argument("--workloads", help="comma-separated uuid prefixes to time, or lenA-B-... for sequences "
                    "of those lengths (default: WORKLOADS)")
    args = ap.parse_args()
    if args.summarize:
        saved = json.loads(Path(args.summarize).read_text())
        timed = saved.get("workloads") or _workloads_of(saved.get("prefill", []))
        print(ab_summary(saved.get("prefill", []), timed, _shape_labels(prefill_manifest(), timed)))
        return
    prefill_variants = parse_variants(args.prefill_variants) if args.prefill_variants else PREFILL_VARIANTS
    decode_variants = parse_variants(args.decode_variants) if args.decode_variants else DECODE_VARIANTS
    workloads = args.workloads.split(",") if args.workloads else WORKLOADS
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    report = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    import triton

    report["triton"] = triton.__version__
    anchors = {}
    if contest_dir():
        anchors = json.loads((contest_dir() / "h200_anchors.json").read_text())

    # ---------------------------------------------------------------- decode
    decode = load_kernel_module("gdn_decode")
    decode_defaults = knob_defaults(decode)
    rows = []
    for variant in ([] if args.no_decode else decode_variants):
        apply_knobs(decode, variant, decode_defaults)
        for B in DECODE_BATCHES:
            x = decode_inputs(B, seeded_generator(1, B), device="cuda")
            out = torch.full((B, 1, 8, 128), float("nan"), dtype=torch.bfloat16, device="cuda")
            st = torch.full((B, 8, 128, 128), float("nan"), device="cuda")
            args_ = list(x.values()) + [out, st]
            decode.run(*args_)
            torch.cuda.synchronize()
            cpu = [v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()]
            want_o, want_s = gdn_recurrence_f64(*decode_as_prefill(*cpu[:8]), cpu[8])
            e_o, e_s = errors(out[:, 0], want_o), errors(st, want_s)
            runs = [time_call(decode.run, args_, 10, 50) for _ in range(3)]
            us = sum(r[0] for r in runs) / 3 * 1e3
            fi = anchors.get("decode", {}).get(str(B), {})
            rows.append({"variant": variant, "batch": B, "us": us, "method": runs[0][1], "out": e_o, "state": e_s,
                         "anchor_flashinfer_us": fi.get("flashinfer_us"), "anchor_copy_us": fi.get("copy_state_us")})
            print(f"decode {variant} B={B:3d} {us:8.2f} us ({runs[0][1]})  anchor FI {fi.get('flashinfer_us')}"
                  f"  copy {fi.get('copy_state_us')}  err out {e_o['max_abs']:.2e} state {e_s['max_abs']:.2e}"
                  f" fails {e_o['fails'] + e_s['fails']}", flush=True)
    report["decode"] = rows
    if args.no_prefill:
        (out_dir / "gpu_check.json").write_text(json.dumps(report, indent=1))
        return

    # ---------------------------------------------------------------- prefill correctness
    manifest = prefill_manifest()
    for uid in workloads:
        resolve_workload(manifest, uid)
    cases = prefill_cases(manifest, args.quick)
    if args.compile_jobs > 1:
        prewarm(prefill_variants, list(cases), workloads, args.quick, args.compile_jobs)
    t0 = time.time()
    oracles = {name: gdn_recurrence_f64(*x.values()) for name, x in cases.items()}
    print(f"oracles in {time.time() - t0:.0f}s", flush=True)
    cases = {n: {k: (v.cuda() if isinstance(v, torch.Tensor) else v) for k, v in x.items()} for n, x in cases.items()}

    prefill = load_kernel_module("gdn_prefill")
    prefill_defaults = knob_defaults(prefill)
    variants = []
    for tag in prefill_variants:
        apply_knobs(prefill, tag, prefill_defaults)
        entry = {"variant": tag, "errors": {}, "latency_us": {}}
        try:
            for name, x in cases.items():
                o, s = run_prefill(prefill, x)
                entry["errors"][name] = {"out": errors(o, oracles[name][0]), "state": errors(s, oracles[name][1])}
            for uid in workloads:
                a_ = workload_args(manifest[uid])
                runs = [time_call(prefill.run, a_, 1, 5) for _ in range(3)]
                entry["latency_us"][uid] = sum(r[0] for r in runs) / 3 * 1e3
                if uid == workloads[0]:
                    entry["host_us_per_call"] = host_overhead_us(prefill.run, a_)
        except Exception as exc:  # a variant that fails to compile or run is reported, not fatal
            entry["error"] = f"{type(exc).__name__}: {exc}"[:2000]
        entry["compiled"] = compiled_stats(prefill)
        variants.append(entry)
        worst = max((max(e["out"]["max_abs"], e["state"]["max_abs"]) for e in entry["errors"].values()), default=float("nan"))
        fails = sum(e["out"]["fails"] + e["state"]["fails"] for e in entry["errors"].values())
        lat = " ".join(f"{entry['latency_us'].get(u, float('nan')):7.2f}" for u in workloads)
        print(f"{tag:<60} worst err {worst:.2e} fails {fails:5d} | {lat} {entry.get('error', '')[:200]}", flush=True)
        print(f"    host {entry.get('host_us_per_call', float('nan')):.1f} us/call; compiled: "
              + "; ".join(f"{c['kernel']} r{c['regs']} s{c['spills']} smem{c['shared']} w{c['warps']}" for c in entry["compiled"]))
        report["prefill"] = variants
        (out_dir / "gpu_check.json").write_text(json.dumps(report, indent=1))
    report["prefill"] = variants
    anchor_rows = {a["uuid"][:8]: a for a in anchors.get("prefill", [])}
    print("workloads: " + " ".join(f"{u}(T{sum(manifest[u]['seqlens'])}/N{len(manifest[u]['seqlens'])})" for u in workloads))
    print("anchor FI kernel-alone: " + " ".join(f"{anchor_rows.get(u, {}).get('flashinfer_kernel_us', float('nan')):7.1f}" for u in workloads))
    print("anchor FI wrapper     : " + " ".join(f"{anchor_rows.get(u, {}).get('flashinfer_wrapper_us', float('nan')):7.1f}" for u in workloads))
    report["workloads"] = workloads
    (out_dir / "gpu_check.json").write_text(json.dumps(report, indent=1))
    if len(variants) > 1:
        print(ab_summary(variants, workloads, _shape_labels(manifest, workloads)))


def _shape_labels(manifest, workloads):
    """'uuid T/N' for each workload the manifest resolves (tokens / sequences); the rest keep their name."""
    labels = {}
    for uid in workloads:
        if uid not in manifest and not uid.startswith("len"):   # not in this checkout's manifest: as given
            continue
        seqlens = resolve_workload(manifest, uid)["seqlens"]
        labels[uid] = f"{uid} {sum(seqlens)}/{len(seqlens)}"
    return labels


def _workloads_of(variants):
    """The workloads an older gpu_check.json timed (before it recorded them), in the order first seen."""
    seen = {}
    for entry in variants:
        for uid in entry.get("latency_us", {}):
            seen.setdefault(uid, None)
    return list(seen)


if __name__ == "__main__":
    main()
