"""Bit-for-bit repeatability of the prefill kernels whose warps or CTAs hand data to each other, under
timing noise (GPU only).

The warp-role kernel passes each chunk's solve from solver warps to state warps through shared memory
and mbarriers; the chunked kernel passes records from prep programs to scan programs through global
memory behind ready flags, or through a programmatic dependent launch. Every product and sum is done
in a fixed order, so the same inputs give the same bits whatever the timing, unless a hand-off reads
data before it is complete. This script runs each input once on a quiet GPU (checked against the
float64 oracle, outputs poisoned with NaN first), then again and again while another stream keeps the
GPU busy (copies of a large buffer, or a large matmul, which take SMs and memory bandwidth from the
kernel at random moments), each time on NaN-poisoned outputs, and compares every element with the
quiet run's bits. A racy hand-off that the timing can expose shows as differing bits; a clean run
is evidence, not proof (the B200's timing is not the H200's). compute-sanitizer's racecheck, where
a CUDA toolkit provides it, checks shared memory within a CTA; this also covers the flags between CTAs.

    python benchmarks/race_smoke.py --repeats 20 [--inputs "18;61;1,45;..."] [--json out.json]

Prints one row per input: the kernel run() chose, the oracle's worst error, and how many noisy runs
differed from the quiet one in any bit.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from gdnkit.inputs import prefill_inputs, seeded_generator  # noqa: E402
from gdnkit.kernels import load_kernel_module  # noqa: E402
from gdnkit.oracle import gdn_recurrence_f64  # noqa: E402
from gdnkit.routes import route_tuning  # noqa: E402

# One or more inputs per hand-off of the H200's routing: the warp-role kernel (one sequence of one to
# 27 chunks, two and three sequences, a head token), the chunked kernel in one launch with flags (16- and
# 64-token chunks), and split launches (many sequences, one long chain with transition records).
DEFAULT_INPUTS = ("18;61;49;300;432;1,45;59,282;100,14,14;30,30,30;20,31,20;"
                  "90,115,34;233,85,19,64;461,70;525;959,0,1,1;2107;1377,600,17;4124x15;8192x56;8192")


def parse_inputs(text: str):
    """'18;1,45;4124x15' -> [[18], [1, 45], 15 near-equal sequences of 4124 tokens in all]."""
    inputs = []
    for item in filter(None, (part.strip() for part in text.split(";"))):
        if "x" in item:
            total, count = (int(n) for n in item.split("x"))
            base = total // count
            inputs.append([base + (1 if i < total - base * count else 0) for i in range(count)])
        else:
            inputs.append([int(n) for n in item.split(",")])
    return inputs


def bit_differences(a: torch.Tensor, b: torch.Tensor) -> int:
    """Elements whose bits differ (NaN against NaN with the same bits counts as equal)."""
    view = torch.int16 if a.element_size() == 2 else torch.int32
    return int((a.contiguous().view(view) != b.contiguous().view(view)).sum())


class Noise:
    """Work on a side stream that overlaps the next launch on the current stream: copies of a large
    buffer (memory bandwidth) or a large matmul (SMs), alternating."""

    def __init__(self, device):
        self.stream = torch.cuda.Stream(device)
        self.src = torch.empty(256 << 20, dtype=torch.uint8, device=device)
        self.dst = torch.empty_like(self.src)
        self.a = torch.randn(8192, 8192, device=device, dtype=torch.bfloat16)
        self.count = 0

    def start(self):
        self.count += 1
        with torch.cuda.stream(self.stream):
            if self.count % 2:
                for _ in range(4):
                    self.dst.copy_(self.src)
            else:
                torch.matmul(self.a, self.a)


def check_input(prefill, seqlens, repeats, noise, seed=0):
    device = torch.device("cuda")
    x = prefill_inputs(seqlens, seeded_generator(seed, "race", *seqlens), device=device)
    total, num_seqs = x["q"].shape[0], len(seqlens)
    route = prefill._route(total, num_seqs, device)

    def call():
        out = torch.full((total, 8, 128), float("nan"), dtype=torch.bfloat16, device=device)
        state = torch.full((num_seqs, 8, 128, 128), float("nan"), device=device)
        prefill.run(*x.values(), out, state)
        return out, state

    quiet_out, quiet_state = call()
    torch.cuda.synchronize()
    cpu = [v.cpu() if isinstance(v, torch.Tensor) else v for v in x.values()]
    want_out, want_state = gdn_recurrence_f64(*cpu)
    err = max(float((quiet_out.double().cpu() - want_out).abs().max()),
              float((quiet_state.double().cpu() - want_state).abs().max()))
    finite = bool(torch.isfinite(quiet_out).all() and torch.isfinite(quiet_state).all())
    differing = 0
    for _ in range(repeats):
        noise.start()
        out, state = call()
        torch.cuda.synchronize()
        if bit_differences(out, quiet_out) or bit_differences(state, quiet_state):
            differing += 1
    tuning = route_tuning(prefill, total, num_seqs, True, device)   # (the first call's choice, where it measured)
    route = tuning.route if tuning is not None else route
    path = route.path + ("+lean" if route.lean else "") + ("+split" if route.split else "")
    return {"seqlens": seqlens if len(seqlens) <= 6 else f"{total} tokens in {num_seqs}",
            "kernel": route.kernel, "path": path, "oracle_max_abs": err, "finite": finite,
            "repeats": repeats, "differing_runs": differing}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", default=DEFAULT_INPUTS, help="';'-separated inputs: lengths joined by ',', "
                        "or TOTALxCOUNT for COUNT near-equal sequences")
    parser.add_argument("--repeats", type=int, default=20, help="noisy runs per input")
    parser.add_argument("--json", help="also write the rows here")
    parser.add_argument("--arch", choices=("sm90", "sm100", "default"),
                        help="route as on this architecture (gpu_check's ARCH= pseudo-knob): e.g. sm100 runs the "
                             "kernels a B200 would launch, on this GPU")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("race_smoke: needs a CUDA GPU")
        return 2
    prefill = load_kernel_module("gdn_prefill")
    if args.arch:
        from gpu_check import fixed_arch

        prefill._arch = fixed_arch(args.arch)
    noise = Noise(torch.device("cuda"))
    rows = []
    for seqlens in parse_inputs(args.inputs):
        row = check_input(prefill, seqlens, args.repeats, noise)
        rows.append(row)
        print(f"{str(row['seqlens']):>24}  {row['kernel']:>10} {row['path']:>16}  oracle max abs "
              f"{row['oracle_max_abs']:.2e}{'' if row['finite'] else ' NOT FINITE'}  differing runs "
              f"{row['differing_runs']}/{row['repeats']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")
    bad = [r for r in rows if r["differing_runs"] or not r["finite"] or r["oracle_max_abs"] > 1e-2]
    print(f"{len(rows)} inputs, {len(bad)} with differing bits, a non-finite element or an error above 1e-2")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
