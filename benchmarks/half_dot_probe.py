"""Which 16-bit wgmma forms does Triton compile correctly on this GPU?

The 64-token chunked scan computes E = T R with T a [64, 64] record and R a [64, BV] tensor in
registers. With fp16 or bf16 operands that dot has returned wrong values and illegal addresses
since session 5 (notes/prefill.md), while tf32 is right. Locally compiled for sm90, the 16-bit
form puts R into shared memory N-contiguous (an MN-major wgmma B operand, swizzle of BV * 2
bytes), where tf32 must use a K-major one. This probe runs that step alone, in a loop like the
scan's (pipelined T loads, R depending on the previous chunk), for several forms and tile widths,
against a float64 reference that rounds R as the kernel does.

    python benchmarks/half_dot_probe.py --out $OUT
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import torch
import triton
import triton.language as tl


@triton.jit
def _chain_kernel(t_ptr, v_ptr, w_ptr, b_ptr, e_ptr, n_chunks, BT: tl.constexpr, BV: tl.constexpr,
                  FORM: tl.constexpr, STAGES: tl.constexpr):
    """Per chunk j: R = v_j - w_j * acc ([BT, BV], fp32), E = T_j R, acc = acc / 2 + E.
    FORM 0: fp16 operands, R from registers (the scan's 16-bit form); 1: bf16 operands;
    2: tf32 (the kept scan's); 3: fp16 with the B operand a loaded [BT, BV] tile (R from memory,
    no register operand: is any MN-major B wrong, or only one stored from registers?);
    4: fp16, E^T = R^T T^T (an mma.sync form, M = BV)."""
    offs_t = tl.arange(0, BT)
    offs_v = tl.arange(0, BV)
    square = offs_t[:, None] * BT + offs_t[None, :]
    tile = offs_t[:, None] * BV + offs_v[None, :]
    acc = tl.zeros([BT, BV], dtype=tl.float32)
    for j in tl.range(0, n_chunks, num_stages=STAGES):
        T = tl.load(t_ptr + j * BT * BT + square, cache_modifier=".cg")
        v = tl.load(v_ptr + j * BT * BV + tile).to(tl.float32)
        w = tl.load(w_ptr + j * BT + offs_t)
        R = v - w[:, None] * acc
        if FORM == 0:
            E = tl.dot(T, R.to(tl.float16))
        elif FORM == 1:
            E = tl.dot(T.to(tl.bfloat16), R.to(tl.bfloat16))
        elif FORM == 2:
            E = tl.dot(T.to(tl.float32), R, input_precision="tf32")
        elif FORM == 3:
            B = tl.load(b_ptr + j * BT * BV + tile)
            E = tl.dot(T, B) + 0.0 * R
        else:
            E = tl.trans(tl.dot(tl.trans(R.to(tl.float16)), tl.trans(T)))
        acc = acc * 0.5 + E
        tl.store(e_ptr + j * BT * BV + tile, E)


def reference(T, v, w, B, form):
    """float64, with R rounded to the form's operand type."""
    n, bt, bv = v.shape
    acc = torch.zeros(bt, bv, dtype=torch.float64, device=v.device)
    out = []
    low = torch.bfloat16 if form == 1 else torch.float16
    for j in range(n):
        R = v[j].double() - w[j].double()[:, None] * acc
        if form == 3:
            E = T[j].double() @ B[j].double()
        elif form == 2:
            E = T[j].double() @ R
        else:
            Tj = T[j].to(low).double() if form == 1 else T[j].double()
            E = Tj @ R.to(low).double()
        acc = acc * 0.5 + E
        out.append(E)
    return torch.stack(out)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--chunks", type=int, default=24)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    gen = torch.Generator(device="cuda").manual_seed(0)
    rows = []
    for bv in (16, 32, 64):
        n, bt = args.chunks, 64
        T = (torch.randn(n, bt, bt, device="cuda", generator=gen) * 0.2).tril().half()
        v = torch.randn(n, bt, bv, device="cuda", generator=gen).bfloat16()
        w = torch.rand(n, bt, device="cuda", generator=gen)
        B = torch.randn(n, bt, bv, device="cuda", generator=gen).half()
        for form in range(5):
            for stages in (1, 3):
                ref = reference(T, v, w, B, form)
                e = torch.full((n, bt, bv), float("nan"), device="cuda")
                row = dict(bv=bv, form=form, stages=stages)
                try:
                    k = _chain_kernel[(1,)](T, v, w, B, e, n, BT=bt, BV=bv, FORM=form, STAGES=stages, num_warps=4)
                    torch.cuda.synchronize()
                    err = (e.double() - ref).abs()
                    row.update(max_err=float(err.nan_to_num(float("inf")).max()),
                               ref_max=float(ref.abs().max()), nan=int(e.isnan().sum()),
                               shared=k.metadata.shared)
                except Exception as exc:   # an illegal address poisons the context: stop there
                    row.update(error=f"{type(exc).__name__}: {exc}"[:300])
                    rows.append(row)
                    print(row, flush=True)
                    (args.out / "half_dot_probe.json").write_text(json.dumps(rows, indent=1))
                    return
                rows.append(row)
                print(row, flush=True)
    (args.out / "half_dot_probe.json").write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
