// SPDX-License-Identifier: MIT
/* The Work and future of a ccore call (work.h). */
#include "work.h"

#include <ATen/core/ivalue.h>
#include <c10/util/Exception.h>

namespace ccore_torch {

WorkCcore::WorkCcore(int rank, c10d::OpType type, std::string what,
		     std::vector<at::Tensor> outputs, std::chrono::milliseconds timeout,
		     int source_rank)
	: Work(rank, type), what_(std::move(what)), outputs_(std::move(outputs)),
	  timeout_(timeout), source_rank_(source_rank),
	  future_(c10::make_intrusive<c10::ivalue::Future>(
		  c10::ListType::create(c10::TensorType::get())))
{
}

bool WorkCcore::wait(std::chrono::milliseconds timeout)
{
	if (timeout == kNoTimeout)
		timeout = timeout_;

	std::unique_lock<std::mutex> lock(mutex_);

	if (!cv_.wait_for(lock, timeout, [this] { return completed_; }))
		TORCH_CHECK(false, "ccore: ", what_, " did not complete within ", timeout.count(),
			    " ms (the wait's timeout, else the process group's); a peer may not have "
			    "called it, or called another collective in its place");
	if (exception_)
		std::rethrow_exception(exception_);
	return true;
}

c10::intrusive_ptr<c10::ivalue::Future> WorkCcore::getFuture()
{
	return future_;
}

std::vector<at::Tensor> WorkCcore::result()
{
	return outputs_;
}

int WorkCcore::sourceRank() const
{
	TORCH_CHECK(source_rank_ >= 0, "ccore: sourceRank() is only known for a recv (", what_, ")");
	return source_rank_;
}

void WorkCcore::complete(std::exception_ptr error)
{
	/*
	 * The future first: a caller whose wait() returns may read it at once.
	 * Its callbacks (DDP's) run here, on the progress thread.
	 */
	if (error)
		future_->setError(error);
	else
		future_->markCompleted(c10::IValue(outputs_));
	finish(error);
}

} // namespace ccore_torch
