#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Train a small classifier with DistributedDataParallel on ccore.

An ordinary DDP script: the only ccore lines are the import, which registers
the "ccore" backend of torch.distributed, and the backend's name.  Launch it
with torchrun, one process per rank (README, "PyTorch"):

  PYTHONPATH=build/python torchrun --nproc_per_node 2 examples/torch_ddp.py

Options: --steps N (default 20), --backend NAME (default ccore; gloo for
comparison).  Rank 0 prints the loss every few steps and, at the end, a
checksum of the parameters, which is the same on every rank (DDP keeps
them in step) and the same with gloo for 2 processes.
"""
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import ccore.torch  # noqa: F401  (registers the "ccore" backend)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--steps", type=int, default=20, help="training steps (default 20)")
    parser.add_argument("--backend", default="ccore", help="ccore (default) or gloo")
    args = parser.parse_args()
    if args.steps < 1:
        parser.error(f"--steps {args.steps}: give at least 1")

    # torchrun sets RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT
    dist.init_process_group(args.backend, init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()

    torch.manual_seed(0)  # the same initial model on every rank
    model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.BatchNorm1d(64),
                                torch.nn.ReLU(), torch.nn.Linear(64, 5))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    # each rank its own shard of a synthetic data set: the class is the
    # position of the largest of the first 5 features
    data = torch.Generator().manual_seed(100 + rank)
    for step in range(args.steps):
        x = torch.randn(32, 20, generator=data)
        y = x[:, :5].argmax(dim=1)
        loss = loss_fn(ddp(x), y)
        opt.zero_grad()
        loss.backward()  # the gradients' AllReduce runs on ccore, bucket by bucket
        opt.step()
        if rank == 0 and (step % 5 == 0 or step == args.steps - 1):
            print(f"step {step:3d}  loss {loss.item():.4f}", flush=True)

    checksum = sum(p.double().sum().item() for p in model.parameters())
    sums = torch.tensor([checksum], dtype=torch.float64)
    dist.all_reduce(sums, op=dist.ReduceOp.MAX)
    same = sums.item() == checksum
    if rank == 0:
        print(f"{world} ranks on {args.backend}: parameter checksum {checksum:.17g} "
              f"({'the same on every rank' if same else 'DIFFERS between ranks'})")
    dist.destroy_process_group()
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
