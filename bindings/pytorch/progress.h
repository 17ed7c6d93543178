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
#include <memory>
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
	 * Fail the calls not started yet, wait for the running one's ccore
	 * part to end (libccore's own timeouts bound it) and let the thread
	 * end on its own: it may still be completing that call, whose
	 * callbacks may need the GIL this caller holds.
	 */
	void stop();

private:
	struct Job {
		c10::intrusive_ptr<WorkCcore> work;
		std::function<void()> run;
	};
	/*
	 * Shared with the thread, which may outlive this object.  finished:
	 * the jobs done, kept for a caller's thread to drop (post(), stop()):
	 * dropping a tensor Python let go of takes the GIL, which the thread
	 * must never wait for while a caller holding it waits for the thread.
	 */
	struct State {
		std::mutex mutex;
		std::condition_variable wake;	/* a job queued, or stopping */
		std::condition_variable idle;	/* running went false */
		std::deque<Job> queue;
		std::deque<Job> finished;
		bool running = false;
		bool stopping = false;
	};

	static void loop(std::shared_ptr<State> state);

	std::shared_ptr<State> state_;
	std::thread thread_;
};

} // namespace ccore_torch
