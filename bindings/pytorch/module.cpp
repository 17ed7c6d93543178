// SPDX-License-Identifier: MIT
/*
 * The Python extension ccore._torch_backend: ProcessGroupCcore as a
 * subclass of torch.distributed.ProcessGroup, which ccore/torch.py
 * registers as the "ccore" backend.  pybind11 (the headers torch's own
 * bindings use), so the object is a ProcessGroup to torch's Python code.
 */
#include "process_group_ccore.h"

#include <ccore.h>
#include <pybind11/chrono.h>
#include <torch/csrc/utils/pybind.h>

namespace py = pybind11;

PYBIND11_MODULE(_torch_backend, m)
{
	m.doc() = "torch.distributed's ccore backend (import ccore.torch to register it)";
	/* ProcessGroup's Python type must exist before we derive from it */
	py::module::import("torch.distributed");

	py::class_<ccore_torch::ProcessGroupCcore, c10d::ProcessGroup,
		   c10::intrusive_ptr<ccore_torch::ProcessGroupCcore>>(m, "ProcessGroupCcore")
		.def(py::init<const c10::intrusive_ptr<c10d::Store> &, int, int,
			      std::chrono::milliseconds>(),
		     py::arg("store"), py::arg("rank"), py::arg("size"), py::arg("timeout"),
		     /* init waits for every rank; a Store in Python takes the GIL itself */
		     py::call_guard<py::gil_scoped_release>());
	m.def("version", [] {
		int v = 0;

		ccore_get_version(&v);
		return v;
	}, "libccore's version code (MAJOR * 10000 + MINOR * 100 + PATCH)");
}
