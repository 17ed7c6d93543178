# SPDX-License-Identifier: MIT
"""ccore's Python bindings.  ``import ccore.torch`` registers the
``ccore`` backend of ``torch.distributed`` (Documentation/pytorch.rst)."""
