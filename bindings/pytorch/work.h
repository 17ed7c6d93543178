// SPDX-License-Identifier: MIT
/*
 * The c10d::Work of one ccore call: completed by the process group's
 * progress thread once the call's stream is done and its outputs copied
 * back (or with the exception naming why not), which also completes its
 * future (DDP waits on the future, not on the Work).
 */
#pragma once

#include <torch/csrc/distributed/c10d/Work.hpp>

#include <chrono>
#include <exception>
#include <string>
#include <vector>

namespace ccore_torch {

class WorkCcore : public c10d::Work {
public:
	/*
	 * @what names the call in messages ("allreduce of 1024 x float");
	 * @outputs are the future's value; @timeout is the process group's,
	 * for wait() without one.
	 */
	WorkCcore(int rank, c10d::OpType type, std::string what, std::vector<at::Tensor> outputs,
		  std::chrono::milliseconds timeout, int source_rank = -1);

	bool wait(std::chrono::milliseconds timeout) override;
	c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;
	std::vector<at::Tensor> result() override;
	int sourceRank() const override;

	const std::string &what() const
	{
		return what_;
	}

	/* The progress thread's: done, successfully when @error is null. */
	void complete(std::exception_ptr error);

private:
	const std::string what_;
	const std::vector<at::Tensor> outputs_;
	const std::chrono::milliseconds timeout_;
	const int source_rank_;
	c10::intrusive_ptr<c10::ivalue::Future> future_;
};

} // namespace ccore_torch
