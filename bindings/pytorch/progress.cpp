// SPDX-License-Identifier: MIT
/* The progress thread of a process group (progress.h). */
#include "progress.h"

#include <stdexcept>

namespace ccore_torch {

ProgressThread::ProgressThread()
	: state_(std::make_shared<State>()), thread_(&ProgressThread::loop, state_)
{
}

ProgressThread::~ProgressThread()
{
	stop();
}

void ProgressThread::post(c10::intrusive_ptr<WorkCcore> work, std::function<void()> run)
{
	std::deque<Job> finished;	/* dropped here, on the caller's thread */

	{
		std::lock_guard<std::mutex> lock(state_->mutex);

		finished.swap(state_->finished);
		if (!state_->stopping) {
			state_->queue.push_back(Job{work, std::move(run)});
			state_->wake.notify_one();
			return;
		}
	}
	work->complete(std::make_exception_ptr(std::runtime_error(
		"ccore " + work->what() + ": the process group is being destroyed")));
}

void ProgressThread::stop()
{
	std::deque<Job> dropped, finished;

	{
		std::unique_lock<std::mutex> lock(state_->mutex);

		state_->stopping = true;
		dropped.swap(state_->queue);
		state_->wake.notify_one();
		/* the running call uses the group's communicator: let it end first */
		state_->idle.wait(lock, [this] { return !state_->running; });
		finished.swap(state_->finished);
	}
	for (auto &job : dropped)
		job.work->complete(std::make_exception_ptr(std::runtime_error(
			"ccore " + job.work->what() +
			": the process group was destroyed before it started")));
	if (thread_.joinable())
		thread_.detach();
}

void ProgressThread::loop(std::shared_ptr<State> state)
{
	for (;;) {
		Job job;

		{
			std::unique_lock<std::mutex> lock(state->mutex);

			state->wake.wait(lock, [&state] {
				return state->stopping || !state->queue.empty();
			});
			if (state->queue.empty())
				return;
			job = std::move(state->queue.front());
			state->queue.pop_front();
			state->running = true;
		}
		std::exception_ptr error;

		try {
			job.run();
		} catch (const std::exception &e) {
			error = std::make_exception_ptr(
				std::runtime_error("ccore " + job.work->what() + ": " + e.what()));
		}
		{
			std::lock_guard<std::mutex> lock(state->mutex);

			state->running = false;
			state->idle.notify_all();
		}
		/* its callbacks may destroy the group (stop() from this thread) */
		job.work->complete(error);

		std::lock_guard<std::mutex> lock(state->mutex);

		state->finished.push_back(std::move(job));
	}
}

} // namespace ccore_torch
