# SPDX-License-Identifier: MIT
"""The ``ccore`` backend of ``torch.distributed``.

Importing this module registers it::

    import ccore.torch
    import torch.distributed as dist
    dist.init_process_group("ccore", init_method="env://")

Each process group (the default one, every ``new_group``) is a ccore
communicator of its own; CPU tensors; one process per rank.  What is
supported and how it works: Documentation/pytorch.rst.
"""
import torch  # noqa: F401  (libtorch first: the extension links against it)
import torch.distributed as dist

from ccore._torch_backend import ProcessGroupCcore, version

__all__ = ["ProcessGroupCcore", "version", "BACKEND"]

BACKEND = "ccore"


def _create(store, rank, size, timeout):
    return ProcessGroupCcore(store, rank, size, timeout)


# a second import (or importlib.reload) must not register twice
if BACKEND.upper() not in dist.Backend._plugins:
    dist.Backend.register_backend(BACKEND, _create)
