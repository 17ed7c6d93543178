// SPDX-License-Identifier: MIT
/*
 * The progress thread of a process group: it runs the group's calls one
 * after the other in the order they were made, each to its end (inputs
 * copied in, posted, the stream synced, outputs copied out), and completes
 * its Work.  The caller returns as soon as its call is queued, so DDP's
 * backward pass goes on computing while a bucket's AllReduce runs.  One
 * call at a time keeps every rank's calls in the same order on the one
 * stream and lets a call reuse its staging buffers.
 */
#pragma once

#include "work.h"

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace ccore_torch {

class ProgressThread {
public:
	ProgressThread();
	/* stop() */
	~ProgressThread();
	ProgressThread(const ProgressThread &) = delete;
	ProgressThread &operator=(const ProgressThread &) = delete;

	/* Run @run on the thread, then complete @work (failed if @run throws). */
	void post(c10::intrusive_ptr<WorkCcore> work, std::function<void()> run);

	/*
	 * Fail the calls not started yet, wait for the running one to end
	 * (libccore's own timeouts bound it) and end the thread.
	 */
	void stop();

private:
	struct Job {
		c10::intrusive_ptr<WorkCcore> work;
		std::function<void()> run;
	};

	void loop();

	std::mutex mutex_;
	std::condition_variable wake_;
	std::deque<Job> queue_;
	bool stopping_ = false;
	std::thread thread_;
};

} // namespace ccore_torch
