"""Steady-state cost of one chunk step of the chunked kernel's wide scan (64-token chunks, 64-column tiles, fp16
T R and P E), apart from everything else a launch does: a wrapper kernel calls the kernel file's own record
loop (_scan_record_chunks) on synthetic records, each program stepping `--chunks` chunks, and a second wrapper
only loads the same operands (k, q [64, 128] bf16, v [64, 64] bf16, T, P [64, 64] fp16: 56 KB a step) through a
pipeline of the same depth and feeds each pair to one product. As in the kernel's split scan launch, the 16
programs of a sequence (8 value heads, 2 V tiles) run at the same time and share its k and q rows and its
records through L2; the programs' sequences are `--window` ones, taken in turn. Each configuration (stages,
CTAs per SM) is timed over ten launches back to back, so that no launch starts on an idle GPU (a launch timed
alone after a synchronize carried about 35 µs more on the H200: notes/prefill.md, session 50).

    python benchmarks/scan_step.py [--chunks 64] [--window 8] [--out DIR]

Prints, per configuration, µs a launch and µs a step an SM, and writes scan_step.json under --out. On the H200
(session 50, runs 11-12): the loop 1.93-2.03 µs a step at three stages and one CTA an SM, 2.82-2.85 at two
stages, 1.77-1.87 an SM with two two-stage CTAs an SM; its loads alone 0.92-1.02 µs at three stages, 1.45-1.50
at two. A new scan (a Gluon consumer loop, say) can be put beside these numbers by adding its wrapper here."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gdnkit.kernels import load_kernel_module  # noqa: E402

PREFILL = load_kernel_module("gdn_prefill")
_record_loop = PREFILL._scan_record_chunks

BT, BV, K, HQ, HV = 64, 64, 128, 4, 8
CONFIGS = ((3, 1), (2, 1), (2, 2))   # (pipeline stages, CTAs per SM)


@triton.jit
def _program_tile(window):
    """This program's (sequence, value head, token offsets, K offsets, V columns): sequence (pid // 16) % window,
    value head pid % 8, V tile (pid // 8) % 2 of 64 columns."""
    pid = tl.program_id(0)
    return ((pid // 16) % window, pid % 8, tl.arange(0, 64), tl.arange(0, 128),
            (pid // 8 % 2) * 64 + tl.arange(0, 64))


@triton.jit
def _loop_program(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window,
                  STAGES: tl.constexpr, BF16_STATE: tl.constexpr, PRECISION: tl.constexpr):
    """Program pid steps n chunks of sequence (pid // 16) % window (n chunks of 64 tokens from token
    seq * n * 64, records from slot seq * n), value head pid % 8, V tile (pid // 8) % 2, from a zero state,
    and stores its [64, 128] state tile at state_ptr + pid * 8192."""
    pid = tl.program_id(0)
    seq, i_h, offs_t, offs_k, offs_v = _program_tile(window)
    S = tl.zeros([64, 128], dtype=tl.float32)
    S = _record_loop(S, i_h, i_h // 2, seq * n * 64, n * 64, seq * n, 0, n, q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr,
                     gate_ptr, out_ptr, 0.088, offs_t, offs_k, offs_v, 4, 8, 128, 128, 64, STAGES, True, BF16_STATE,
                     PRECISION)
    tl.store(state_ptr + pid * 8192 + tl.arange(0, 64)[:, None] * 128 + offs_k[None, :], S)


@triton.jit
def _loads_program(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window,
                   STAGES: tl.constexpr, BF16_STATE: tl.constexpr, PRECISION: tl.constexpr):
    """The same program's operands (k, q, v tile, T, P of each chunk) through a pipeline of STAGES, each
    pair into one product and nothing else; stores the three sums so that nothing is left out."""
    pid = tl.program_id(0)
    seq, i_h, offs_t, offs_k, offs_v = _program_tile(window)
    acc_kq = tl.zeros([64, 64], dtype=tl.float32)
    acc_tp = tl.zeros([64, 64], dtype=tl.float32)
    acc_v = tl.zeros([64, 64], dtype=tl.float32)
    for j in tl.range(0, n, num_stages=STAGES):
        tok = seq * n * 64 + j * 64 + offs_t
        rec = (seq * n + j) * 8 + i_h
        square = rec * 4096 + offs_t[:, None] * 64 + offs_t[None, :]
        k_c = tl.load(k_ptr + (tok * 4 + i_h // 2)[:, None] * 128 + offs_k[None, :])
        q_c = tl.load(q_ptr + (tok * 4 + i_h // 2)[:, None] * 128 + offs_k[None, :])
        v_c = tl.load(v_ptr + (tok * 8 + i_h)[:, None] * 128 + offs_v[None, :])
        T = tl.load(tri_ptr + square)
        P = tl.load(qk_ptr + square)
        acc_kq = tl.dot(k_c, tl.trans(q_c), acc_kq)
        acc_tp = tl.dot(T, P, acc_tp)
        acc_v = tl.dot(v_c, tl.trans(v_c), acc_v)
    tl.store(state_ptr + pid * 8192 + offs_t[:, None] * 128 + offs_t[None, :], acc_kq + acc_tp + acc_v)


def synthetic_inputs(chunks, window, device, seed=0):
    """Rows and records of `window` sequences of `chunks` 64-token chunks each: k, q small (so the state
    stays bounded over many chunks), T and P random fp16 (the loop's cost does not depend on their being a
    real inverse), log-gate cumulative sums slightly below 0, beta in (0, 1)."""
    g = torch.Generator(device=device).manual_seed(seed)
    tokens, records = window * chunks * BT, window * chunks * HV

    def rand(*shape, scale=1.0):
        return torch.randn(*shape, device=device, generator=g) * scale

    G = -(torch.rand(records, BT, device=device, generator=g) * 0.01).cumsum(1)
    beta = torch.rand(records, BT, device=device, generator=g)
    return dict(q=rand(tokens, HQ, K, scale=0.1).to(torch.bfloat16), k=rand(tokens, HQ, K, scale=0.1).to(torch.bfloat16),
                v=rand(tokens, HV, K).to(torch.bfloat16),
                tri=rand(records * BT * BT, scale=0.05).to(torch.float16),
                qk=rand(records * BT * BT, scale=0.05).to(torch.float16),
                gate=torch.cat([G, beta], 1).contiguous().view(-1),
                out=torch.empty(tokens, HV, K, device=device, dtype=torch.bfloat16))


def state_buffer(x, grid):
    """The [grid, 64, 128] fp32 buffer a launch over `grid` programs stores into."""
    return torch.empty(grid, BV, K, device=x["q"].device, dtype=torch.float32)


def launch(program, x, state, chunks, window, stages):
    """One launch of `program`, one program per tile of `state` (see state_buffer); returns `state`."""
    program[(state.shape[0],)](x["q"], x["k"], x["v"], x["tri"], x["qk"], x["gate"], x["out"], state, chunks, window,
                               STAGES=stages, BF16_STATE=PREFILL.BF16_STATE_DOTS, PRECISION=PREFILL.DOT_PRECISION,
                               num_warps=4)
    return state


def reference_states(x, grid, chunks, window):
    """What _loop_program stores, in float64: per program the record recurrence from a zero state,
        KS = K S^T,  R = beta V - beta exp(G) KS,  E = T R,  S <- exp(G_last) S + (E exp(G_last - G))^T K."""
    f = lambda t: t.double().cpu()
    k, v, tri, gate = f(x["k"]), f(x["v"]), f(x["tri"]).view(-1, BT, BT), f(x["gate"]).view(-1, 2 * BT)
    out = torch.zeros(grid, BV, K, dtype=torch.float64)
    for pid in range(grid):
        seq, i_h, v0 = (pid // 16) % window, pid % 8, (pid // 8 % 2) * BV
        S = torch.zeros(BV, K, dtype=torch.float64)
        for j in range(chunks):
            rows = slice(seq * chunks * BT + j * BT, seq * chunks * BT + (j + 1) * BT)
            rec = (seq * chunks + j) * HV + i_h
            k_c, v_c = k[rows, i_h // 2], v[rows, i_h, v0:v0 + BV]
            G, beta = gate[rec, :BT], gate[rec, BT:]
            R = beta[:, None] * v_c - (beta * G.exp())[:, None] * (k_c @ S.T)
            E = tri[rec] @ R
            S = S * G[-1].exp() + (E * (G[-1] - G).exp()[:, None]).T @ k_c
        out[pid] = S
    return out


def time_launches(program, x, grid, chunks, window, stages, repeats=5, back_to_back=10):
    """Median over `repeats` of the mean µs a launch over `back_to_back` launches issued without a gap."""
    state = state_buffer(x, grid)
    for _ in range(3):
        launch(program, x, state, chunks, window, stages)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(back_to_back):
            launch(program, x, state, chunks, window, stages)
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000 / back_to_back)
    return sorted(times)[len(times) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, default=64, help="chunks a program steps")
    ap.add_argument("--window", type=int, default=8, help="sequences the programs' rows come from")
    ap.add_argument("--out", type=Path, default=Path("."))
    args = ap.parse_args()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    x = synthetic_inputs(args.chunks, args.window, "cuda")
    rows = []
    for what, program in (("loop", _loop_program), ("loads", _loads_program)):
        for stages, per_sm in CONFIGS:
            us = time_launches(program, x, sms * per_sm, args.chunks, args.window, stages)
            step = us / (args.chunks * per_sm)
            rows.append(dict(what=what, stages=stages, ctas_per_sm=per_sm, us_per_launch=us, us_per_step_per_sm=step))
            print(f"{what:5s} stages {stages} CTAs/SM {per_sm}: {us:8.2f} µs a launch, {step:5.3f} µs a step an SM")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "scan_step.json").write_text(json.dumps(dict(
        device=torch.cuda.get_device_name(0), chunks=args.chunks, window=args.window, sms=sms, rows=rows), indent=1))


if __name__ == "__main__":
    main()
