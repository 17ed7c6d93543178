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
	{
		std::lock_guard<std::mutex> lock(state_->mutex);

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
	std::deque<Job> dropped;

	{
		std::lock_guard<std::mutex> lock(state_->mutex);

		state_->stopping = true;
		dropped.swap(state_->queue);
		state_->wake.notify_one();
	}
	for (auto &job : dropped)
		job.work->complete(std::make_exception_ptr(std::runtime_error(
			"ccore " + job.work->what() +
			": the process group was destroyed before it started")));
	if (!thread_.joinable())
		return;
	if (thread_.get_id() == std::this_thread::get_id())
		thread_.detach();	/* in a callback of its own: it ends after it */
	else
		thread_.join();
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
		}
		std::exception_ptr error;

		try {
			job.run();
		} catch (const std::exception &e) {
			error = std::make_exception_ptr(
				std::runtime_error("ccore " + job.work->what() + ": " + e.what()));
		}
		job.work->complete(error);
	}
}

} // namespace ccore_torch
