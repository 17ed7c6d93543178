// SPDX-License-Identifier: MIT
/*
 * Device memory the collectives of one process group run in.
 *
 * A CPU tensor's bytes are copied into a staging buffer and back: the
 * processes of a job share the sim fabric, and ccore_mem_register refuses
 * process memory there (the other processes could not reach it), so a
 * tensor cannot be registered in place.  One buffer per (role, size), made
 * on first use and kept until the process group goes: a rank repeating a
 * call repeats its buffers, so its peers' cached plans stay valid, and a
 * call new to one rank is new to all (Documentation/processes.rst, "Plan
 * caches across processes").  Used by the progress thread only.
 */
#pragma once

#include <ccore.h>

#include <cstddef>
#include <map>
#include <utility>

namespace ccore_torch {

enum class StagingRole {
	in_place,	/* collectives run in place: one buffer in and out */
	send,		/* AllToAll's input */
	recv,		/* AllToAll's output */
	p2p,		/* Send and Recv */
};

struct StagingBuffer {
	ccore_ptr dev;
	unsigned char *host;	/* the same bytes, as this process sees them */
};

class StagingPool {
public:
	explicit StagingPool(ccore_comm *comm) : comm_(comm) {}
	~StagingPool();
	StagingPool(const StagingPool &) = delete;
	StagingPool &operator=(const StagingPool &) = delete;

	/* The buffer of @role holding @bytes (> 0); throws naming ccore's error. */
	StagingBuffer get(StagingRole role, size_t bytes);

private:
	ccore_comm *comm_;
	std::map<std::pair<StagingRole, size_t>, StagingBuffer> buffers_;
};

} // namespace ccore_torch
