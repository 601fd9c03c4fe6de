"""Session 49 scratch: is the split scan launch bound by its SMs or by L2? Occupies N SMs with blocker CTAs
(192 KB of shared memory each, spinning on a flag) while one probed call of a prefill workload runs on the
rest, and prints the scan programs' per-chunk step, state arrival and one-chunk loop for each N. If L2's
bandwidth sets the step, fewer SMs make each step shorter; if each SM's own latency does, the step stays."""
import json, statistics as st, sys, time
from pathlib import Path
import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT)); sys.path.insert(0, str(ROOT / "benchmarks"))


@gluon.jit
def _blocker(flag_ptr, out_ptr, ROWS: gl.constexpr):
    lay: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    buf = gl.allocate_shared_memory(gl.int32, [ROWS, 128], lay)
    blk: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    offs = gl.arange(0, 128, layout=blk)
    buf.index(0).store(offs)
    v = gl.load(flag_ptr, volatile=True)
    while v == 0:
        v = gl.load(flag_ptr, volatile=True)
    x = buf.index(0).load(blk)
    gl.store(out_ptr + gl.program_id(0) * 128 + offs, x + v)


def main():
    import prefill_timeline as ptl
    from gdnkit import PREFILL
    from gdnkit.dataset import load_manifest
    from gpu_check import workload_args
    uids = sys.argv[1].split(",")
    blocked = [int(x) for x in sys.argv[2].split(",")]
    out_path = Path(sys.argv[3])
    mod = ptl.load_probed_module()
    manifest = {w["uuid"][:8]: w for w in load_manifest()[PREFILL]}
    flag = torch.zeros(1, dtype=torch.int32, device="cuda")
    sink = torch.zeros(132 * 128, dtype=torch.int32, device="cuda")
    flush = torch.empty(512 << 20, dtype=torch.int8, device="cuda")
    side, release, main_stream = torch.cuda.Stream(), torch.cuda.Stream(), torch.cuda.Stream()
    flag.fill_(1)
    _blocker[(4,)](flag, sink, ROWS=384, num_warps=4)   # compile; exits at once
    torch.cuda.synchronize()
    results = []
    for uid in uids:
        args = workload_args(manifest[uid])
        for _ in range(2):
            mod.run(*args)
        for n in blocked:
            spans = []
            for rep in range(3):
                flush.zero_()
                flag.zero_()
                torch.cuda.synchronize()
                if n:
                    with torch.cuda.stream(side):
                        _blocker[(n,)](flag, sink, ROWS=384, num_warps=4)
                    time.sleep(0.002)   # the blockers resident before the call
                with torch.cuda.stream(main_stream):
                    mod.run(*args)
                    done = torch.cuda.Event()
                    done.record()
                with torch.cuda.stream(release):
                    release.wait_event(done)
                    flag.fill_(1)
                torch.cuda.synchronize()
                probe = mod.PROBE.view(-1, ptl.SLOTS).cpu().tolist()
                spans.append(probe)
            results.append({"uuid": uid, "blocked": n, "launch": dict(mod.LAST), "calls": spans})
            print(summary(results[-1]), flush=True)
    out_path.write_text(json.dumps(results))


def summary(e):
    npre = e["launch"]["num_prep"]
    lines = []
    span = lambda c: max(p[2] for p in c) - min(p[0] for p in c if p[0])
    c = sorted(e["calls"], key=span)[len(e["calls"]) // 2]
    t0 = min(p[0] for p in c if p[0])
    preps = [p for p in c[:npre] if p[2]]
    sms = len({p[3] for p in c if p[2]})
    pe = max(p[2] for p in preps)
    scans = [p for p in c[npre:] if p[1] and p[2] and p[6] == 64 and p[9] and p[10]]
    multi = [p for p in scans if p[4] >= 2]
    xs = [p[4] for p in multi]; ys = [(p[10] - p[9]) / 1e3 for p in multi]
    mx, my = st.mean(xs), st.mean(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    one = [p for p in scans if p[4] == 1]
    lines.append(f"== {e['uuid']} blocked {e['blocked']}: span {span(c)/1e3:.1f} us on {sms} SMs, prep {len(preps)} "
                 f"programs {st.mean((p[2]-p[0])/1e3 for p in preps):.2f} us each, end {(pe-t0)/1e3:.1f}; wide scans: "
                 f"{len(scans)}, step {b:.2f} us/chunk (loop {my - b * mx:.2f} + {b:.2f} n), state "
                 f"{st.median((p[9]-p[0])/1e3 for p in scans):.2f}, one-chunk loop "
                 f"{st.median((p[10]-p[9])/1e3 for p in one) if one else float('nan'):.2f}, end-store "
                 f"{st.median((p[2]-p[10])/1e3 for p in scans):.2f}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
