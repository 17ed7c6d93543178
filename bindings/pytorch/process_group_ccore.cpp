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

/* The one list of a list of lists: one device (the CPU) per process. */
const std::vector<at::Tensor> &single_list(const std::vector<std::vector<at::Tensor>> &lists,
					   size_t n, const at::Tensor &ref, const char *call,
					   const char *which)
{
	TORCH_CHECK(lists.size() == 1, "ccore ", call, ": takes one ", which, " list (one CPU "
		    "device per process); got ", lists.size());
	check_list(lists[0], n, ref, call, (std::string("the ") + which + " list").c_str());
	return lists[0];
}

/*
 * The list only the root passes (gather's outputs, scatter's inputs): on
 * the root one of @n tensors like @ref, elsewhere none.
 */
std::vector<at::Tensor> root_list(const std::vector<std::vector<at::Tensor>> &lists,
				  bool is_root, int64_t root, size_t n, const at::Tensor &ref,
				  const char *call, const char *which)
{
	if (!is_root) {
		TORCH_CHECK(lists.empty() || (lists.size() == 1 && lists[0].empty()), "ccore ",
			    call, ": only the root (rank ", root, ") takes ", which, " tensors");
		return {};
	}
	TORCH_CHECK(lists.size() == 1, "ccore ", call, ": the root takes one ", which,
		    " list; got ", lists.size());
	check_list(lists[0], n, ref, call, (std::string("the root's ") + which + " list").c_str());
	return lists[0];
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
	const char *unsupported;

	switch (op.op_) {
	case c10d::ReduceOp::SUM: return ccore_sum;
	case c10d::ReduceOp::PRODUCT: return ccore_prod;
	case c10d::ReduceOp::MIN: return ccore_min;
	case c10d::ReduceOp::MAX: return ccore_max;
	case c10d::ReduceOp::AVG: return ccore_avg;
	case c10d::ReduceOp::BAND: unsupported = "BAND"; break;
	case c10d::ReduceOp::BOR: unsupported = "BOR"; break;
	case c10d::ReduceOp::BXOR: unsupported = "BXOR"; break;
	case c10d::ReduceOp::PREMUL_SUM: unsupported = "PREMUL_SUM"; break;
	default:
		TORCH_CHECK(false, "ccore ", call, ": unknown reduce op ", int(op.op_), "; ",
			    kReduceOpsAllowed);
	}
	TORCH_CHECK(false, "ccore ", call, ": reduce op ", unsupported, " is not supported; ",
		    kReduceOpsAllowed);
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

/*
 * A list of tensors laid end to end, as the collectives see it: one per
 * rank, or one tensor of all ranks' parts (the _base calls).
 */
void copy_in(unsigned char *dst, const std::vector<at::Tensor> &list)
{
	for (const auto &t : list) {
		copy_in(dst, t);
		dst += nbytes(t);
	}
}

void copy_out(const std::vector<at::Tensor> &list, const unsigned char *src)
{
	for (const auto &t : list) {
		copy_out(t, src);
		src += nbytes(t);
	}
}

size_t nbytes(const std::vector<at::Tensor> &list)
{
	size_t sum = 0;

	for (const auto &t : list)
		sum += nbytes(t);
	return sum;
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

void ProcessGroupCcore::finish(int rc, const char *call)
{
	check_ccore(rc, call);
	rc = ccore_stream_sync(stream_);
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

void ProcessGroupCcore::run_one(StagingRole role, const at::Tensor &t, bool send, bool keep,
				const char *call, const std::function<int(ccore_ptr buf)> &run)
{
	if (!t.numel())
		return;
	StagingBuffer buf = staging_->get(role, nbytes(t));

	if (send)
		copy_in(buf.host, t);
	finish(run(buf.dev), call);
	if (keep)
		copy_out(t, buf.host);
}

void ProcessGroupCcore::run_all_gather(const at::Tensor &in, const std::vector<at::Tensor> &outs)
{
	const size_t bytes = nbytes(in);

	if (!bytes)
		return;
	StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

	copy_in(buf.host + rank_ * bytes, in);
	finish(ccore_all_gather(buf.dev + rank_ * bytes, buf.dev, bytes, ccore_u8, comm_, stream_),
	       "ccore_all_gather");
	copy_out(outs, buf.host);
}

void ProcessGroupCcore::run_reduce_scatter(const std::vector<at::Tensor> &ins,
					   const at::Tensor &out, ccore_dtype dt, ccore_redop op)
{
	const size_t bytes = nbytes(out);

	if (!bytes)
		return;
	StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

	copy_in(buf.host, ins);
	finish(ccore_reduce_scatter(buf.dev, buf.dev + rank_ * bytes, out.numel(), dt, op, comm_,
				    stream_),
	       "ccore_reduce_scatter");
	copy_out(out, buf.host + rank_ * bytes);
}

void ProcessGroupCcore::run_all_to_all(const std::vector<at::Tensor> &ins,
				       const std::vector<at::Tensor> &outs)
{
	const size_t bytes = nbytes(ins);

	if (!bytes)
		return;
	StagingBuffer send = staging_->get(StagingRole::send, bytes);
	StagingBuffer recv = staging_->get(StagingRole::recv, bytes);

	copy_in(send.host, ins);
	finish(ccore_all_to_all(send.dev, recv.dev, bytes / size_, ccore_u8, comm_, stream_),
	       "ccore_all_to_all");
	copy_out(outs, recv.host);
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::allreduce(std::vector<at::Tensor> &tensors,
							    const c10d::AllreduceOptions &opts)
{
	const at::Tensor t = single(tensors, "allreduce", "input");
	const ccore_dtype dt = reduce_dtype(t.scalar_type(), "allreduce");
	const ccore_redop op = reduce_op(opts.reduceOp, "allreduce");

	return enqueue(c10d::OpType::ALLREDUCE, describe("allreduce", t), {t}, [this, t, dt, op] {
		run_one(StagingRole::in_place, t, true, true, "ccore_all_reduce",
			[&](ccore_ptr buf) {
			return ccore_all_reduce(buf, buf, t.numel(), dt, op, comm_, stream_);
		});
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
		run_one(StagingRole::in_place, t, rank_ == root, rank_ != root, "ccore_broadcast",
			[&](ccore_ptr buf) {
			return ccore_broadcast(buf, buf, nbytes(t), ccore_u8, root, comm_, stream_);
		});
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
		run_one(StagingRole::in_place, t, true, rank_ == root, "ccore_reduce",
			[&](ccore_ptr buf) {
			return ccore_reduce(buf, buf, t.numel(), dt, op, root, comm_, stream_);
		});
	});
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::allgather(
	std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
	const c10d::AllgatherOptions &)
{
	const at::Tensor in = single(inputs, "allgather", "input");
	const std::vector<at::Tensor> outs = single_list(outputs, size_, in, "allgather", "output");

	return enqueue(c10d::OpType::ALLGATHER, describe("allgather", in), outs,
		       [this, in, outs] { run_all_gather(in, outs); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::_allgather_base(
	at::Tensor &output, at::Tensor &input, const c10d::AllgatherOptions &)
{
	check_tensor(input, "_allgather_base", "input");
	check_like(output, input, input.numel() * size_, "_allgather_base", "output");
	const at::Tensor in = input, out = output;

	return enqueue(c10d::OpType::_ALLGATHER_BASE, describe("_allgather_base", in), {out},
		       [this, in, out] { run_all_gather(in, {out}); });
}

/* An AllGather whose result only the root keeps. */
c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::gather(
	std::vector<std::vector<at::Tensor>> &outputs, std::vector<at::Tensor> &inputs,
	const c10d::GatherOptions &opts)
{
	const at::Tensor in = single(inputs, "gather", "input");

	check_root(opts.rootRank, "gather");
	const bool is_root = opts.rootRank == rank_;
	const std::vector<at::Tensor> outs = root_list(outputs, is_root, opts.rootRank, size_, in,
						       "gather", "output");

	return enqueue(c10d::OpType::GATHER, describe("gather", in), outs,
		       [this, in, outs] { run_all_gather(in, outs); });
}

/* A Broadcast of the root's whole list, of which each rank keeps its part. */
c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::scatter(
	std::vector<at::Tensor> &outputs, std::vector<std::vector<at::Tensor>> &inputs,
	const c10d::ScatterOptions &opts)
{
	const at::Tensor out = single(outputs, "scatter", "output");
	const int root = static_cast<int>(opts.rootRank);

	check_root(opts.rootRank, "scatter");
	const std::vector<at::Tensor> ins = root_list(inputs, root == rank_, root, size_, out,
						      "scatter", "input");

	return enqueue(c10d::OpType::SCATTER, describe("scatter", out), {out},
		       [this, out, ins, root] {
		const size_t bytes = nbytes(out);

		if (!bytes)
			return;
		StagingBuffer buf = staging_->get(StagingRole::in_place, bytes * size_);

		copy_in(buf.host, ins);	/* none but on the root */
		finish(ccore_broadcast(buf.dev, buf.dev, bytes * size_, ccore_u8, root, comm_,
				       stream_),
		       "ccore_broadcast");
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
	const std::vector<at::Tensor> ins = single_list(inputs, size_, out, "reduce_scatter",
							"input");

	return enqueue(c10d::OpType::REDUCE_SCATTER, describe("reduce_scatter", out), {out},
		       [this, ins, out, dt, op] { run_reduce_scatter(ins, out, dt, op); });
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
		       {out}, [this, in, out, dt, op] { run_reduce_scatter({in}, out, dt, op); });
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
		       [this, in, out] { run_all_to_all({in}, {out}); });
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
		       [this, ins, outs] { run_all_to_all(ins, outs); });
}

c10::intrusive_ptr<c10d::Work> ProcessGroupCcore::send(std::vector<at::Tensor> &tensors,
						       int dst_rank, int tag)
{
	const at::Tensor t = single(tensors, "send", "input");

	check_peer(dst_rank, tag, "send");
	return enqueue(c10d::OpType::SEND,
		       describe("send", t) + " to rank " + std::to_string(dst_rank), {},
		       [this, t, dst_rank] {
		run_one(StagingRole::p2p, t, true, false, "ccore_send", [&](ccore_ptr buf) {
			return ccore_send(buf, nbytes(t), ccore_u8, dst_rank, comm_, stream_);
		});
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
		run_one(StagingRole::p2p, t, false, true, "ccore_recv", [&](ccore_ptr buf) {
			return ccore_recv(buf, nbytes(t), ccore_u8, src_rank, comm_, stream_);
		});
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

		finish(ccore_all_reduce(buf.dev, buf.dev, 1, ccore_i32, ccore_sum, comm_, stream_),
		       "ccore_all_reduce");
	});
}

} // namespace ccore_torch
