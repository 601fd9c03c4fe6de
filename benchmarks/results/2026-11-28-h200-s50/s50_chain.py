"""Scratch (session 50, run 11): the wide scan's record loop itself (_scan_record_chunks of the kernel file,
64-column tiles, fp16 T R and P E) on synthetic records, one CTA an SM at three stages against two CTAs an
SM at two (session 48's lean form), at steady state: launches back to back, each program stepping n chunks,
its operands from a window small enough to stay in L2. Time per step per SM."""
import torch
import triton
import triton.language as tl

import solution.triton.gdn_prefill as m

_scan = m._scan_record_chunks


@triton.jit
def chain(q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr, out_ptr, state_ptr, n, window, STAGES: tl.constexpr,
          BF16_STATE: tl.constexpr, PRECISION: tl.constexpr):
    pid = tl.program_id(0)
    seq = (pid // 16) % window
    i_h = pid % 8
    i_qk = i_h // 2
    offs_t = tl.arange(0, 64)
    offs_k = tl.arange(0, 128)
    offs_v = (pid // 8 % 2) * 64 + tl.arange(0, 64)
    S = tl.zeros([64, 128], dtype=tl.float32)
    S = _scan(S, i_h, i_qk, seq * n * 64, n * 64, seq * n, 0, n, q_ptr, k_ptr, v_ptr, tri_ptr, qk_ptr, gate_ptr,
              out_ptr, 0.088, offs_t, offs_k, offs_v, 4, 8, 128, 128, 64, STAGES, True, BF16_STATE, PRECISION)
    tl.store(state_ptr + pid * 8192 + tl.arange(0, 64)[:, None] * 128 + offs_k[None, :], S)


def main():
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    window = 8
    for n in (32, 64):
        tokens = window * n * 64
        recs = window * n * 8
        g = torch.Generator(device="cuda").manual_seed(0)
        q = (torch.randn(tokens, 4, 128, device="cuda", generator=g) * 0.1).to(torch.bfloat16)
        k = (torch.randn(tokens, 4, 128, device="cuda", generator=g) * 0.1).to(torch.bfloat16)
        v = torch.randn(tokens, 8, 128, device="cuda", generator=g).to(torch.bfloat16)
        tri = (torch.randn(recs * 4096, device="cuda", generator=g) * 0.05).to(torch.float16)
        qk = (torch.randn(recs * 4096, device="cuda", generator=g) * 0.05).to(torch.float16)
        gate = torch.cat([-torch.rand(recs, 64, device="cuda", generator=g).cumsum(1) * 0.01,
                          torch.rand(recs, 64, device="cuda", generator=g)], 1).contiguous().view(-1)
        out = torch.empty(tokens, 8, 128, device="cuda", dtype=torch.bfloat16)
        for stages, per_sm in ((3, 1), (2, 1), (2, 2)):
            grid = sms * per_sm
            state = torch.empty(grid * 8192, device="cuda", dtype=torch.float32)
            args = (q, k, v, tri, qk, gate, out, state, n, window)
            kw = dict(STAGES=stages, BF16_STATE=m.BF16_STATE_DOTS, PRECISION=m.DOT_PRECISION, num_warps=4)
            c = chain.warmup(*args, grid=(grid,), **kw)
            for _ in range(3):
                chain[(grid,)](*args, **kw)
            torch.cuda.synchronize()
            times = []
            for _ in range(5):
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(10):
                    chain[(grid,)](*args, **kw)
                e1.record()
                torch.cuda.synchronize()
                times.append(e0.elapsed_time(e1) * 100)
            us = sorted(times)[2]
            print(f"steps {n} stages {stages} CTAs/SM {per_sm}: {us:8.2f} us a launch, {us / (n * per_sm):5.3f} us "
                  f"a step an SM, smem {c.metadata.shared // 1024} KB, regs {c.n_regs}, spills {c.n_spills}")


main()
