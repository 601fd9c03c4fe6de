"""Every kernel once on small and ragged inputs, for compute-sanitizer (memcheck, initcheck): session 58."""
import sys, torch
from gdnkit.inputs import prefill_inputs, decode_inputs, seeded_generator
from gdnkit.kernels import load_kernel_module
p = load_kernel_module("gdn_prefill"); d = load_kernel_module("gdn_decode")
import os
if os.environ.get("ARCH"):   # route as on another architecture (gpu_check's ARCH= pseudo-knob)
    sys.path.insert(0, "benchmarks")
    from gpu_check import fixed_arch
    p._arch = d._arch = fixed_arch(os.environ["ARCH"])
dev = torch.device("cuda")
for B in (1, 3, 16, 65):
    for with_state in (True, False):
        x = decode_inputs(B, seeded_generator(0, B), device="cuda", with_state=with_state)
        d.run(*x.values(), torch.empty(B, 1, 8, 128, dtype=torch.bfloat16, device="cuda"),
              torch.empty(B, 8, 128, 128, device="cuda"))
cases = [[6], [3, 5], [1, 0, 2], [16], [1, 0, 13, 16], [61], [18], [1, 45], [30, 30, 30], [0, 30, 0, 12],
         [300], [90, 115, 34], [233, 85, 19, 64], [461, 70], [525], [959, 0, 1, 1], [2107], [1377, 600, 17],
         [280] * 15, [147] * 55 + [107], [8192], [5000, 3192], [327] * 25 + [17]]
for s in cases:
    for with_state in (True, False):
        x = prefill_inputs(s, seeded_generator(0, *s), device="cuda", with_state=with_state)
        T = x["q"].shape[0]
        route = p._route(T, len(s), dev)
        p.run(*x.values(), torch.empty(T, 8, 128, dtype=torch.bfloat16, device="cuda"),
              torch.empty(len(s), 8, 128, 128, device="cuda"))
        torch.cuda.synchronize()
        print(s if len(s) < 6 else f"{T}/{len(s)}", with_state, route.kernel, route.path, "split" if route.split else "", flush=True)
print("done")
