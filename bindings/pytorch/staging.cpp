// SPDX-License-Identifier: MIT
/* Staging buffers of a process group (staging.h). */
#include "staging.h"

#include "errors.h"

#include <cerrno>

namespace ccore_torch {

StagingBuffer StagingPool::get(StagingRole role, size_t bytes)
{
	auto key = std::make_pair(role, bytes);
	auto it = buffers_.find(key);

	if (it != buffers_.end())
		return it->second;

	StagingBuffer buf{};
	check_ccore(ccore_mem_alloc(comm_, bytes, &buf.dev), "ccore_mem_alloc of a staging buffer");
	buf.host = static_cast<unsigned char *>(ccore_mem_host(comm_, buf.dev));
	if (!buf.host)
		fail_ccore(-ENXIO, "ccore_mem_host of a staging buffer");
	buffers_.emplace(key, buf);
	return buf;
}

StagingPool::~StagingPool()
{
	for (auto &entry : buffers_)
		ccore_mem_free(comm_, entry.second.dev);
}

} // namespace ccore_torch
