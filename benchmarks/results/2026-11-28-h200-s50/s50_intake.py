"""Scratch (session 50, run 7): how fast can one CTA of 4 warps per SM pull a wide scan step's operands
(k, q [64, 128] bf16, v [64, 64] bf16, T, P [64, 64] fp16: 56 KB) through Triton's 3-stage pipeline when
the step does almost nothing else (one product per operand pair)? Data L2-resident (a 16 MB window read
over and over) or not (a 1 GB window). Time per step per SM, from CUDA events over the whole grid."""
import sys
import torch
import triton
import triton.language as tl


@triton.jit
def intake(k_ptr, q_ptr, v_ptr, t_ptr, p_ptr, out_ptr, n_steps, window, STAGES: tl.constexpr, SMEM_PAD: tl.constexpr):
    pid = tl.program_id(0)
    r64 = tl.arange(0, 64)
    c128 = tl.arange(0, 128)
    c64 = tl.arange(0, 64)
    acc = tl.zeros([64, 64], dtype=tl.float32)
    acc2 = tl.zeros([64, 64], dtype=tl.float32)
    acc3 = tl.zeros([64, 64], dtype=tl.float32)
    for j in tl.range(0, n_steps, num_stages=STAGES):
        chunk = (pid * 7919 + j * 131) % window
        row = chunk * 64 + r64
        k = tl.load(k_ptr + row[:, None] * 512 + c128[None, :])
        q = tl.load(q_ptr + row[:, None] * 512 + c128[None, :])
        v = tl.load(v_ptr + row[:, None] * 1024 + c64[None, :])
        T = tl.load(t_ptr + row[:, None] * 64 + c64[None, :])
        P = tl.load(p_ptr + row[:, None] * 64 + c64[None, :])
        acc = tl.dot(k, tl.trans(q), acc)
        acc2 = tl.dot(T, P, acc2)
        acc3 = tl.dot(v, tl.trans(v), acc3)
    o = acc + acc2 + acc3
    tl.store(out_ptr + pid * 4096 + r64[:, None] * 64 + c64[None, :], o)


def main():
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(f"{sms} SMs")
    for window_mb, n_steps, warps in ((16, 16, 4), (16, 32, 4), (16, 64, 4), (16, 128, 4), (16, 64, 8), (1024, 64, 4)):
        rows = window_mb * (1 << 20) // 1024 // 64 * 64     # k rows of 1 KB (bf16 x 512)
        window = rows // 64
        k = torch.randn(rows, 512, device="cuda", dtype=torch.bfloat16)
        q = torch.randn(rows, 512, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(rows, 1024, device="cuda", dtype=torch.bfloat16)
        t = torch.randn(rows, 64, device="cuda", dtype=torch.float16)
        p = torch.randn(rows, 64, device="cuda", dtype=torch.float16)
        for stages, ctas_per_sm in ((3, 1), (2, 2)):
            grid = sms * ctas_per_sm
            out = torch.empty(grid * 4096, device="cuda", dtype=torch.float32)
            try:
                c = intake.warmup(k, q, v, t, p, out, n_steps, window, STAGES=stages, SMEM_PAD=0, grid=(grid,), num_warps=warps)
            except Exception as e:
                print("compile failed", stages, e); continue
            for _ in range(3):
                intake[(grid,)](k, q, v, t, p, out, n_steps, window, STAGES=stages, SMEM_PAD=0, num_warps=warps)
            torch.cuda.synchronize()
            times = []
            for _ in range(5):   # ten launches back to back, no idle between them
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(10):
                    intake[(grid,)](k, q, v, t, p, out, n_steps, window, STAGES=stages, SMEM_PAD=0, num_warps=warps)
                e1.record()
                torch.cuda.synchronize()
                times.append(e0.elapsed_time(e1) * 100)
            us = sorted(times)[len(times) // 2]
            steps_per_sm = n_steps * ctas_per_sm
            step_bytes = 56 * 1024
            print(f"warps {warps} steps {n_steps} window {window_mb:5d} MB stages {stages} CTAs/SM {ctas_per_sm}: {us:8.2f} us, "
                  f"{us / steps_per_sm:5.3f} us a step an SM, {step_bytes * steps_per_sm / us / 1000:6.1f} B/ns an SM, "
                  f"smem {c.metadata.shared // 1024} KB, regs {c.n_regs}")


main()
