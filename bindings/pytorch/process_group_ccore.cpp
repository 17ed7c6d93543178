// SPDX-License-Identifier: MIT
/* torch.distributed's "ccore" backend (process_group_ccore.h). */
#include "process_group_ccore.h"

#include "errors.h"

#include <c10/util/Exception.h>

#include <cerrno>
#include <cstring>
#include <sstream>

namespace ccore_torch {

namespace {

/* The Store key of a group's unique id (the Store is the group's, prefixed). */
const char kUniqueIdKey[] = "ccore_unique_id";

const char kReduceOpsAllowed[] = "allowed: SUM, PRODUCT, MIN, MAX, AVG";

ccore_unique_id exchange_unique_id(c10d::Store &store, int rank)
{
	ccore_unique_id id;

	if (rank == 0) {
		check_ccore(ccore_get_unique_id(&id), "ccore_get_unique_id");
		store.set(kUniqueIdKey, std::vector<uint8_t>(id.internal,
							     id.internal + sizeof(id.internal)));
		return id;
	}
	std::vector<uint8_t> bytes = store.get(kUniqueIdKey);

	TORCH_CHECK(bytes.size() == sizeof(id.internal), "ccore: the Store's ", kUniqueIdKey,
		    " has ", bytes.size(), " bytes, not the ", sizeof(id.internal),
		    " of a ccore unique id (another program wrote the key?)");
	std::memcpy(id.internal, bytes.data(), sizeof(id.internal));
	return id;
}

/* Every tensor ccore moves: a dense, contiguous CPU tensor. */
void check_tensor(const at::Tensor &t, const char *call, const char *which)
{
	TORCH_CHECK(t.defined(), "ccore ", call, ": ", which, " is an undefined tensor");
	TORCH_CHECK(t.device().is_cpu(), "ccore ", call, ": ", which, " is on ", t.device(),
		    "; only CPU tensors are supported");
	TORCH_CHECK(t.layout() == at::kStrided, "ccore ", call, ": ", which, " is ", t.layout(),
		    "; only dense (strided) tensors are supported");
	TORCH_CHECK(t.is_contiguous(), "ccore ", call, ": ", which,
		    " is not contiguous; pass a contiguous tensor (.contiguous())");
}

/* The one tensor of a list: one device (the CPU) per process. */
const at::Tensor &single(const std::vector<at::Tensor> &tensors, const char *call,
			 const char *which)
{
	TORCH_CHECK(tensors.size() == 1, "ccore ", call, ": takes one ", which,
		    " tensor (one CPU device per process); got ", tensors.size());
	check_tensor(tensors[0], call, which);
	return tensors[0];
}

/* @t is a tensor of @ref's dtype with @numel elements. */
void check_like(const at::Tensor &t, const at::Tensor &ref, int64_t numel, const char *call,
		const char *which)
{
	check_tensor(t, call, which);
	TORCH_CHECK(t.scalar_type() == ref.scalar_type(), "ccore ", call, ": ", which, " is ",
		    t.scalar_type(), ", the input is ", ref.scalar_type(), "; they must match");
	TORCH_CHECK(t.numel() == numel, "ccore ", call, ": ", which, " has ", t.numel(),
		    " elements; it must have ", numel);
}

/* A list of @n tensors like @ref, each of @ref's numel. */
void check_list(const std::vector<at::Tensor> &list, size_t n, const at::Tensor &ref,
		const char *call, const char *which)
{
	TORCH_CHECK(list.size() == n, "ccore ", call, ": ", which, " has ", list.size(),
		    " tensors; it must have one per rank (", n, ")");
	for (const auto &t : list)
		check_like(t, ref, ref.numel(), call, which);
}

/* The dtype a reduction runs in; the collectives that only move bytes take any. */
ccore_dtype reduce_dtype(at::ScalarType type, const char *call)
{
	switch (type) {
	case at::kFloat: return ccore_f32;
	case at::kDouble: return ccore_f64;
	case at::kHalf: return ccore_f16;
	case at::kBFloat16: return ccore_bf16;
	case at::kChar: return ccore_i8;
	case at::kByte: return ccore_u8;
	case at::kInt: return ccore_i32;
	case at::kLong: return ccore_i64;
	default:
		TORCH_CHECK(false, "ccore ", call, ": cannot reduce ", type,
			    " tensors; allowed: float32, float64, float16, bfloat16, int8, uint8, "
			    "int32, int64");
	}
}

ccore_redop reduce_op(const c10d::ReduceOp &op, const char *call)
{
	switch (op.op_) {
	case c10d::ReduceOp::SUM: return ccore_sum;
	case c10d::ReduceOp::PRODUCT: return ccore_prod;
	case c10d::ReduceOp::MIN: return ccore_min;
	case c10d::ReduceOp::MAX: return ccore_max;
	case c10d::ReduceOp::AVG: return ccore_avg;
	case c10d::ReduceOp::BAND:
		TORCH_CHECK(false, "ccore ", call, ": reduce op BAND is not supported; ",
			    kReduceOpsAllowed);
	case c10d::ReduceOp::BOR:
		TORCH_CHECK(false, "ccore ", call, ": reduce op BOR is not supported; ",
			    kReduceOpsAllowed);
	case c10d::ReduceOp::BXOR:
		TORCH_CHECK(false, "ccore ", call, ": reduce op BXOR is not supported; ",
			    kReduceOpsAllowed);
	case c10d::ReduceOp::PREMUL_SUM:
		TORCH_CHECK(false, "ccore ", call, ": reduce op PREMUL_SUM is not supported; ",
			    kReduceOpsAllowed);
	default:
		TORCH_CHECK(false, "ccore ", call, ": unknown reduce op ", int(op.op_), "; ",
			    kReduceOpsAllowed);
	}
}

/* "allreduce of 1024 x Float", for messages. */
std::string describe(const char *call, const at::Tensor &t)
{
	std::ostringstream s;

	s << call << " of " << t.numel() << " x " << t.scalar_type();
	return s.str();
}

size_t nbytes(const at::Tensor &t)
{
	return t.numel() * t.element_size();
}

void copy_in(unsigned char *dst, const at::Tensor &t)
{
	std::memcpy(dst, t.data_ptr(), nbytes(t));
}

void copy_out(const at::Tensor &t, const unsigned char *src)
{
	std::memcpy(t.data_ptr(), src, nbytes(t));
}

} // namespace

ProcessGroupCcore::ProcessGroupCcore(const c10::intrusive_ptr<c10d::Store> &store, int rank,
				     int size, std::chrono::milliseconds timeout)
	: ProcessGroup(rank, size), timeout_(timeout)
{
	TORCH_CHECK(store, "ccore: the process group needs a Store (got None)");
	ccore_unique_id id = exchange_unique_id(*store, rank);

	check_ccore(ccore_comm_init_rank(&comm_, size, &id, rank, nullptr),
		    "ccore_comm_init_rank (rank " + std::to_string(rank) + " of " +
			    std::to_string(size) + ")");
	stream_ = ccore_comm_stream(comm_);
	staging_.reset(new StagingPool(comm_));
	progress_.reset(new ProgressThread());
	init();
}

ProcessGroupCcore::~ProcessGroupCcore()
{
	progress_.reset();
	staging_.reset();
	ccore_comm_destroy(comm_);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::enqueue(c10d::OpType type, std::string what,
							  std::vector<at::Tensor> outputs,
							  std::function<void()> run,
							  int source_rank)
{
	auto work = c10::make_intrusive<WorkCcore>(rank_, type, std::move(what),
						   std::move(outputs), timeout_, source_rank);

	progress_->post(work, std::move(run));
	return work;
}

void ProcessGroupCcore::sync_stream()
{
	int rc = ccore_stream_sync(stream_);

	/* across processes the usual cause shows only as the CC core's job timeout */
	if (rc == -ETIMEDOUT)
		fail_ccore(rc, "ccore_stream_sync (timed out: has every rank of the group "
			       "called this collective, and no other in its place?)");
	check_ccore(rc, "ccore_stream_sync");
}

void ProcessGroupCcore::check_root(int64_t root, const char *call) const
{
	TORCH_CHECK(root >= 0 && root < size_, "ccore ", call, ": root rank ", root,
		    " is out of range; allowed: 0 to ", size_ - 1);
}

void ProcessGroupCcore::check_peer(int peer, int tag, const char *call) const
{
	TORCH_CHECK(peer >= 0 && peer < size_ && peer != rank_, "ccore ", call, ": peer rank ",
		    peer, " is not another rank of the group; allowed: 0 to ", size_ - 1,
		    " but ", rank_, " (this rank)");
	TORCH_CHECK(tag == 0, "ccore ", call, ": tag ", tag,
		    " is not supported; ccore matches sends and receives in the order they are "
		    "posted (allowed: tag 0)");
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::allreduce(std::vector<at::Tensor> &tensors,
							    const c10d::AllreduceOptions &opts)
{
	const at::Tensor t = single(tensors, "allreduce", "input");
	const ccore_dtype dt = reduce_dtype(t.scalar_type(), "allreduce");
	const ccore_redop op = reduce_op(opts.reduceOp, "allreduce");

	return enqueue(c10d::OpType::ALLREDUCE, describe("allreduce", t), {t}, [this, t, dt, op] {
		if (!t.numel())
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, nbytes(t));

		copy_in(buf.host, t);
		check_ccore(ccore_all_reduce(buf.dev, buf.dev, t.numel(), dt, op, comm_, stream_),
			    "ccore_all_reduce");
		sync_stream();
		copy_out(t, buf.host);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::broadcast(std::vector<at::Tensor> &tensors,
							    const c10d::BroadcastOptions &opts)
{
	const at::Tensor t = single(tensors, "broadcast", "input");
	const int root = static_cast<int>(opts.rootRank);

	check_root(opts.rootRank, "broadcast");
	TORCH_CHECK(opts.rootTensor == 0, "ccore broadcast: root tensor ", opts.rootTensor,
		    " out of range; allowed: 0 (one tensor per process)");
	return enqueue(c10d::OpType::BROADCAST, describe("broadcast", t), {t}, [this, t, root] {
		if (!t.numel())
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, nbytes(t));

		if (rank_ == root)
			copy_in(buf.host, t);
		check_ccore(ccore_broadcast(buf.dev, buf.dev, nbytes(t), ccore_u8, root, comm_,
					    stream_),
			    "ccore_broadcast");
		sync_stream();
		if (rank_ != root)
			copy_out(t, buf.host);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::reduce(std::vector<at::Tensor> &tensors,
							 const c10d::ReduceOptions &opts)
{
	const at::Tensor t = single(tensors, "reduce", "input");
	const ccore_dtype dt = reduce_dtype(t.scalar_type(), "reduce");
	const ccore_redop op = reduce_op(opts.reduceOp, "reduce");
	const int root = static_cast<int>(opts.rootRank);

	check_root(opts.rootRank, "reduce");
	TORCH_CHECK(opts.rootTensor == 0, "ccore reduce: root tensor ", opts.rootTensor,
		    " out of range; allowed: 0 (one tensor per process)");
	return enqueue(c10d::OpType::REDUCE, describe("reduce", t), {t}, [this, t, dt, op, root] {
		if (!t.numel())
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, nbytes(t));

		copy_in(buf.host, t);
		check_ccore(ccore_reduce(buf.dev, buf.dev, t.numel(), dt, op, root, comm_, stream_),
			    "ccore_reduce");
		sync_stream();
		if (rank_ == root)
			copy_out(t, buf.host);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::allgather(
	std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
	const c10d::AllgatherOptions &)
{
	const at::Tensor in = single(inputs, "allgather", "input");

	TORCH_CHECK(outputs.size() == 1, "ccore allgather: takes one output list (one CPU "
		    "device per process); got ", outputs.size());
	check_list(outputs[0], size_, in, "allgather", "the output list");
	const std::vector<at::Tensor> outs = outputs[0];

	return enqueue(c10d::OpType::ALLGATHER, describe("allgather", in), outs,
		       [this, in, outs] {
		const size_t bytes = nbytes(in);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		copy_in(buf.host + rank_ * bytes, in);
		check_ccore(ccore_all_gather(buf.dev + rank_ * bytes, buf.dev, bytes, ccore_u8,
					     comm_, stream_),
			    "ccore_all_gather");
		sync_stream();
		for (int r = 0; r < size_; r++)
			copy_out(outs[r], buf.host + r * bytes);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::_allgather_base(
	at::Tensor &output, at::Tensor &input, const c10d::AllgatherOptions &)
{
	check_tensor(input, "_allgather_base", "input");
	check_like(output, input, input.numel() * size_, "_allgather_base", "output");
	const at::Tensor in = input, out = output;

	return enqueue(c10d::OpType::_ALLGATHER_BASE, describe("_allgather_base", in), {out},
		       [this, in, out] {
		const size_t bytes = nbytes(in);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		copy_in(buf.host + rank_ * bytes, in);
		check_ccore(ccore_all_gather(buf.dev + rank_ * bytes, buf.dev, bytes, ccore_u8,
					     comm_, stream_),
			    "ccore_all_gather");
		sync_stream();
		copy_out(out, buf.host);
	});
}

/* An AllGather whose result only the root keeps. */
c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::gather(
	std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
	const c10d::GatherOptions &opts)
{
	const at::Tensor in = single(inputs, "gather", "input");
	const bool root = opts.rootRank == rank_;
	std::vector<at::Tensor> outs;

	check_root(opts.rootRank, "gather");
	if (root) {
		TORCH_CHECK(outputs.size() == 1, "ccore gather: the root takes one output list; "
			    "got ", outputs.size());
		check_list(outputs[0], size_, in, "gather", "the root's output list");
		outs = outputs[0];
	} else {
		TORCH_CHECK(outputs.empty() || (outputs.size() == 1 && outputs[0].empty()),
			    "ccore gather: only the root (rank ", opts.rootRank,
			    ") takes output tensors");
	}
	return enqueue(c10d::OpType::GATHER, describe("gather", in), outs, [this, in, outs] {
		const size_t bytes = nbytes(in);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		copy_in(buf.host + rank_ * bytes, in);
		check_ccore(ccore_all_gather(buf.dev + rank_ * bytes, buf.dev, bytes, ccore_u8,
					     comm_, stream_),
			    "ccore_all_gather");
		sync_stream();
		for (size_t r = 0; r < outs.size(); r++)
			copy_out(outs[r], buf.host + r * bytes);
	});
}

/* A Broadcast of the root's whole list, of which each rank keeps its part. */
c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::scatter(
	std::vector<at::Tensor> &outputs, std::vector<std::vector<at::Tensor>> &inputs,
	const c10d::ScatterOptions &opts)
{
	const at::Tensor out = single(outputs, "scatter", "output");
	const int root = static_cast<int>(opts.rootRank);
	std::vector<at::Tensor> ins;

	check_root(opts.rootRank, "scatter");
	if (root == rank_) {
		TORCH_CHECK(inputs.size() == 1, "ccore scatter: the root takes one input list; "
			    "got ", inputs.size());
		check_list(inputs[0], size_, out, "scatter", "the root's input list");
		ins = inputs[0];
	} else {
		TORCH_CHECK(inputs.empty() || (inputs.size() == 1 && inputs[0].empty()),
			    "ccore scatter: only the root (rank ", root, ") takes input tensors");
	}
	return enqueue(c10d::OpType::SCATTER, describe("scatter", out), {out},
		       [this, out, ins, root] {
		const size_t bytes = nbytes(out);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		for (size_t r = 0; r < ins.size(); r++)
			copy_in(buf.host + r * bytes, ins[r]);
		check_ccore(ccore_broadcast(buf.dev, buf.dev, bytes * size_, ccore_u8, root, comm_,
					    stream_),
			    "ccore_broadcast");
		sync_stream();
		copy_out(out, buf.host + rank_ * bytes);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::reduce_scatter(
	std::vector<at::Tensor> &outputs, std::vector<std::vector<at::Tensor>> &inputs,
	const c10d::ReduceScatterOptions &opts)
{
	const at::Tensor out = single(outputs, "reduce_scatter", "output");
	const ccore_dtype dt = reduce_dtype(out.scalar_type(), "reduce_scatter");
	const ccore_redop op = reduce_op(opts.reduceOp, "reduce_scatter");

	TORCH_CHECK(inputs.size() == 1, "ccore reduce_scatter: takes one input list (one CPU "
		    "device per process); got ", inputs.size());
	check_list(inputs[0], size_, out, "reduce_scatter", "the input list");
	const std::vector<at::Tensor> ins = inputs[0];

	return enqueue(c10d::OpType::REDUCE_SCATTER, describe("reduce_scatter", out), {out},
		       [this, out, ins, dt, op] {
		const size_t bytes = nbytes(out);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		for (int r = 0; r < size_; r++)
			copy_in(buf.host + r * bytes, ins[r]);
		check_ccore(ccore_reduce_scatter(buf.dev, buf.dev + rank_ * bytes, out.numel(), dt,
						 op, comm_, stream_),
			    "ccore_reduce_scatter");
		sync_stream();
		copy_out(out, buf.host + rank_ * bytes);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::_reduce_scatter_base(
	at::Tensor &output, at::Tensor &input, const c10d::ReduceScatterOptions &opts)
{
	check_tensor(output, "_reduce_scatter_base", "output");
	check_like(input, output, output.numel() * size_, "_reduce_scatter_base", "input");
	const ccore_dtype dt = reduce_dtype(output.scalar_type(), "_reduce_scatter_base");
	const ccore_redop op = reduce_op(opts.reduceOp, "_reduce_scatter_base");
	const at::Tensor in = input, out = output;

	return enqueue(c10d::OpType::_REDUCE_SCATTER_BASE, describe("_reduce_scatter_base", out),
		       {out}, [this, in, out, dt, op] {
		const size_t bytes = nbytes(out);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		copy_in(buf.host, in);
		check_ccore(ccore_reduce_scatter(buf.dev, buf.dev + rank_ * bytes, out.numel(), dt,
						 op, comm_, stream_),
			    "ccore_reduce_scatter");
		sync_stream();
		copy_out(out, buf.host + rank_ * bytes);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::alltoall_base(
	at::Tensor &output, at::Tensor &input, std::vector<int64_t> &output_split_sizes,
	std::vector<int64_t> &input_split_sizes, const c10d::AllToAllOptions &)
{
	check_tensor(input, "alltoall_base", "input");
	check_like(output, input, input.numel(), "alltoall_base", "output");
	TORCH_CHECK(input.dim() > 0, "ccore alltoall_base: the input is a scalar; it must have a "
		    "first dimension to split over the ranks");
	/* ccore's AllToAll sends every rank the same count: equal splits only */
	for (const auto *splits : {&input_split_sizes, &output_split_sizes}) {
		TORCH_CHECK(splits->empty() || splits->size() == size_t(size_),
			    "ccore alltoall_base: ", splits->size(), " split sizes for ", size_,
			    " ranks");
		for (int64_t rows : *splits)
			TORCH_CHECK(rows == (*splits)[0], "ccore alltoall_base: split sizes must all "
				    "be equal (ccore's AllToAll sends every rank as much); got ",
				    c10::IntArrayRef(*splits));
	}
	TORCH_CHECK(input.size(0) % size_ == 0, "ccore alltoall_base: the input's first "
		    "dimension (", input.size(0), ") must split evenly over the ", size_, " ranks");
	const at::Tensor in = input, out = output;

	return enqueue(c10d::OpType::ALLTOALL_BASE, describe("alltoall_base", in), {out},
		       [this, in, out] {
		const size_t bytes = nbytes(in);

		if (!bytes)
			return;
		StagingBuffer send = staging_->get(StagingRole::send, bytes);
		StagingBuffer recv = staging_->get(StagingRole::recv, bytes);

		copy_in(send.host, in);
		check_ccore(ccore_all_to_all(send.dev, recv.dev, bytes / size_, ccore_u8, comm_,
					     stream_),
			    "ccore_all_to_all");
		sync_stream();
		copy_out(out, recv.host);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::alltoall(std::vector<at::Tensor> &outputs,
							   std::vector<at::Tensor> &inputs,
							   const c10d::AllToAllOptions &)
{
	TORCH_CHECK(!inputs.empty(), "ccore alltoall: the input list is empty; it must have one "
		    "tensor per rank (", size_, ")");
	check_tensor(inputs[0], "alltoall", "the input list");
	check_list(inputs, size_, inputs[0], "alltoall",
		   "the input list (every tensor of the first's dtype and size)");
	check_list(outputs, size_, inputs[0], "alltoall",
		   "the output list (every tensor of the inputs' dtype and size)");
	const std::vector<at::Tensor> ins = inputs, outs = outputs;

	return enqueue(c10d::OpType::ALLTOALL, describe("alltoall", ins[0]), outs,
		       [this, ins, outs] {
		const size_t bytes = nbytes(ins[0]);

		if (!bytes)
			return;
		StagingBuffer send = staging_->get(StagingRole::send, bytes * size_);
		StagingBuffer recv = staging_->get(StagingRole::recv, bytes * size_);

		for (int r = 0; r < size_; r++)
			copy_in(send.host + r * bytes, ins[r]);
		check_ccore(ccore_all_to_all(send.dev, recv.dev, bytes, ccore_u8, comm_, stream_),
			    "ccore_all_to_all");
		sync_stream();
		for (int r = 0; r < size_; r++)
			copy_out(outs[r], recv.host + r * bytes);
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::send(std::vector<at::Tensor> &tensors,
						       int dst_rank, int tag)
{
	const at::Tensor t = single(tensors, "send", "input");

	check_peer(dst_rank, tag, "send");
	return enqueue(c10d::OpType::SEND,
		       describe("send", t) + " to rank " + std::to_string(dst_rank), {},
		       [this, t, dst_rank] {
		if (!t.numel())
			return;
		StagingBuffer buf = staging_->get(StagingRole::p2p, nbytes(t));

		copy_in(buf.host, t);
		check_ccore(ccore_send(buf.dev, nbytes(t), ccore_u8, dst_rank, comm_, stream_),
			    "ccore_send");
		sync_stream();
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::recv(std::vector<at::Tensor> &tensors,
						       int src_rank, int tag)
{
	const at::Tensor t = single(tensors, "recv", "output");

	check_peer(src_rank, tag, "recv");
	return enqueue(c10d::OpType::RECV,
		       describe("recv", t) + " from rank " + std::to_string(src_rank), {t},
		       [this, t, src_rank] {
		if (!t.numel())
			return;
		StagingBuffer buf = staging_->get(StagingRole::p2p, nbytes(t));

		check_ccore(ccore_recv(buf.dev, nbytes(t), ccore_u8, src_rank, comm_, stream_),
			    "ccore_recv");
		sync_stream();
		copy_out(t, buf.host);
	}, src_rank);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::recvAnysource(std::vector<at::Tensor> &,
								int)
{
	TORCH_CHECK(false, "ccore recv: a receive from any source is not supported; name the "
		    "source rank (dist.recv(tensor, src=...))");
}

/* An AllReduce of one int32, which no rank finishes before every rank posted it. */
c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::barrier(const c10d::BarrierOptions &)
{
	return enqueue(c10d::OpType::BARRIER, "barrier", {}, [this] {
		StagingBuffer buf = staging_->get(StagingRole::in_place, sizeof(int32_t));

		check_ccore(ccore_all_reduce(buf.dev, buf.dev, 1, ccore_i32, ccore_sum, comm_,
					     stream_),
			    "ccore_all_reduce");
		sync_stream();
	});
}

} // namespace ccore_torch
