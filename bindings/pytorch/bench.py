#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ccore against gloo through torch.distributed (make bench-torch).

Starts --procs processes (default 4), one rank each, on the embedded
simulated devices.  Each makes the default group on ccore and a gloo group
of the same ranks, then times, on each backend:

  allreduce  dist.all_reduce of a 25 MiB float32 bucket (DDP's default
             bucket size): the median over --iters calls of the slowest
             rank's time, and the bus bandwidth nccl-tests would print
             (2 (N-1)/N x bytes / time)
  ddp step   one DDP training step (forward, backward with the gradients'
             AllReduce overlapping it, SGD) of an MLP with 28 MiB of
             parameters (two of DDP's buckets): the median over --iters
             steps, slowest rank

and prints each with the ratio gloo time / ccore time (above 1: ccore is
faster).

Usage: bench.py [--procs N] [--iters N] [--python-dir DIR] [--help]
"""
import argparse
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUCKET_BYTES = 25 << 20


def slowest_median(times, group):
    """The median over the iterations of the slowest rank's time."""
    import torch
    import torch.distributed as dist
    t = torch.tensor(times, dtype=torch.float64)
    dist.all_reduce(t, op=dist.ReduceOp.MAX, group=group)
    return t.median().item()


def bench_allreduce(group, iters):
    import torch
    import torch.distributed as dist
    x = torch.ones(BUCKET_BYTES // 4)
    dist.all_reduce(x, group=group)  # the first call builds the plan
    times = []
    for _ in range(iters):
        dist.barrier(group=group)
        start = time.perf_counter()
        dist.all_reduce(x, group=group)
        times.append(time.perf_counter() - start)
    return slowest_median(times, group)


def bench_ddp(group, iters, rank):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    torch.manual_seed(0)
    width = 1024  # 7.3 M float32 parameters, 28 MiB
    model = torch.nn.Sequential(torch.nn.Linear(width, 2 * width), torch.nn.ReLU(),
                                torch.nn.Linear(2 * width, 2 * width), torch.nn.ReLU(),
                                torch.nn.Linear(2 * width, width // 2))
    ddp = DDP(model, process_group=group)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    data = torch.Generator().manual_seed(rank)
    x = torch.randn(32, width, generator=data)
    times = []
    for step in range(iters + 2):  # 2 warm-up steps: plans, allocations
        dist.barrier(group=group)
        start = time.perf_counter()
        loss = ddp(x).square().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step >= 2:
            times.append(time.perf_counter() - start)
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    return slowest_median(times, group), params


def worker(rank, world, port, iters):
    import torch.distributed as dist
    import ccore.torch  # noqa: F401
    dist.init_process_group("ccore", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world)
    gloo = dist.new_group(backend="gloo")
    rows = []
    ar = {name: bench_allreduce(g, iters) for name, g in (("ccore", None), ("gloo", gloo))}
    rows.append((f"allreduce {BUCKET_BYTES >> 20} MiB float32", ar))
    ddp, params = {}, 0
    for name, g in (("ccore", None), ("gloo", gloo)):
        ddp[name], params = bench_ddp(g, iters, rank)
    rows.append((f"ddp step, {params / (1 << 20):.0f} MiB of parameters", ddp))
    if rank == 0:
        busbw = {k: 2 * (world - 1) / world * BUCKET_BYTES / v / 1e9 for k, v in ar.items()}
        print(f"# {world} processes, median of {iters}, slowest rank")
        print(f"{'':36s} {'ccore ms':>10s} {'gloo ms':>10s} {'gloo/ccore':>11s}")
        for label, t in rows:
            print(f"{label:36s} {t['ccore'] * 1e3:10.1f} {t['gloo'] * 1e3:10.1f} "
                  f"{t['gloo'] / t['ccore']:11.2f}")
        print(f"allreduce bus bandwidth: ccore {busbw['ccore']:.2f} GB/s, "
              f"gloo {busbw['gloo']:.2f} GB/s", flush=True)
    dist.destroy_process_group()


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--worker":
        # the built package ($PYTHONPATH), not the sources beside this file
        sys.path = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
        return worker(*(int(a) for a in sys.argv[2:]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__)
    parser.add_argument("--procs", type=int, default=4, help="processes (default 4)")
    parser.add_argument("--iters", type=int, default=5, help="timed calls and steps (default 5)")
    parser.add_argument("--python-dir", default=os.path.join(HERE, "..", "..", "build", "python"),
                        help="where the built ccore package is (default build/python)")
    args = parser.parse_args()
    if not 2 <= args.procs <= 8:
        parser.error(f"--procs {args.procs}: give 2 to 8")
    if args.iters < 1:
        parser.error(f"--iters {args.iters}: give at least 1")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, PYTHONPATH=os.path.abspath(args.python_dir))
    env.pop("CCORE_COMM_ID", None)
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", str(r),
                               str(args.procs), str(port), str(args.iters)], env=env)
             for r in range(args.procs)]
    return max(p.wait() for p in procs)


if __name__ == "__main__":
    sys.exit(main())
