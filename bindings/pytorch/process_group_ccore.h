// SPDX-License-Identifier: MIT
/*
 * ProcessGroupCcore: torch.distributed's "ccore" backend, over libccore's
 * public per-rank API only (runtime/include/ccore.h).
 *
 * One process per rank, CPU tensors.  Each process group is its own ccore
 * communicator: rank 0 makes a unique id and puts its bytes into the
 * group's c10d Store (prefixed per group by torch), the others read it,
 * every rank calls ccore_comm_init_rank.  Calls are checked on the
 * caller's thread (TORCH_CHECK: what was wrong and what is allowed), then
 * queued for the group's progress thread (progress.h), which runs them
 * through staging buffers in device memory (staging.h).
 */
#pragma once

#include "progress.h"
#include "staging.h"

#include <ccore.h>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ccore_torch {

class ProcessGroupCcore : public c10d::ProcessGroup {
public:
	ProcessGroupCcore(const c10::intrusive_ptr<c10d::Store> &store, int rank, int size,
			  std::chrono::milliseconds timeout);
	~ProcessGroupCcore() override;

	const std::string getBackendName() const override
	{
		return "ccore";
	}

	c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor> &tensors,
						 const c10d::BroadcastOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor> &tensors,
						 const c10d::AllreduceOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor> &tensors,
					      const c10d::ReduceOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>> &outputs,
						 std::vector<at::Tensor> &inputs,
						 const c10d::AllgatherOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor &output, at::Tensor &input,
						       const c10d::AllgatherOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>> &outputs,
					      std::vector<at::Tensor> &inputs,
					      const c10d::GatherOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor> &outputs,
					       std::vector<std::vector<at::Tensor>> &inputs,
					       const c10d::ScatterOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor> &outputs,
						      std::vector<std::vector<at::Tensor>> &inputs,
						      const c10d::ReduceScatterOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
		at::Tensor &output, at::Tensor &input,
		const c10d::ReduceScatterOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor &output, at::Tensor &input,
						     std::vector<int64_t> &output_split_sizes,
						     std::vector<int64_t> &input_split_sizes,
						     const c10d::AllToAllOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor> &outputs,
						std::vector<at::Tensor> &inputs,
						const c10d::AllToAllOptions &opts) override;
	c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor> &tensors, int dst_rank,
					    int tag) override;
	c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor> &tensors, int src_rank,
					    int tag) override;
	c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor> &tensors,
						     int tag) override;
	c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions &opts) override;

private:
	/* Queue @run (the progress thread's part of a call) and return its Work. */
	c10::intrusive_ptr<c10d::Work> enqueue(c10d::OpType type, std::string what,
					       std::vector<at::Tensor> outputs,
					       std::function<void()> run, int source_rank = -1);
	/*
	 * On the progress thread: check that @call queued its collective on the
	 * stream (@rc, what it returned), then wait for it; throws naming
	 * ccore's error.
	 */
	void finish(int rc, const char *call);
	void check_root(int64_t root, const char *call) const;
	/*
	 * The progress thread's part of a call on one tensor: @t (nothing if
	 * empty) staged in a buffer of @role, copied there if @send, @run on
	 * the buffer (ccore's return, @call its name), copied back if @keep.
	 */
	void run_one(StagingRole role, const at::Tensor &t, bool send, bool keep, const char *call,
		     const std::function<int(ccore_ptr buf)> &run);
	/*
	 * The progress thread's part of the calls that differ only in how
	 * their tensors are listed: one per rank, or one of all ranks' parts
	 * laid end to end (the _base calls), or none on a rank that keeps
	 * nothing (gather off the root).
	 */
	void run_all_gather(const at::Tensor &in, const std::vector<at::Tensor> &outs);
	void run_reduce_scatter(const std::vector<at::Tensor> &ins, const at::Tensor &out,
				ccore_dtype dt, ccore_redop op);
	void run_all_to_all(const std::vector<at::Tensor> &ins,
			    const std::vector<at::Tensor> &outs);
	void check_peer(int peer, int tag, const char *call) const;

	const std::chrono::milliseconds timeout_;
	ccore_comm *comm_ = nullptr;
	ccore_stream *stream_ = nullptr;
	std::unique_ptr<StagingPool> staging_;
	std::unique_ptr<ProgressThread> progress_;
};

} // namespace ccore_torch
