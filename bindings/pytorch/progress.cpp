// SPDX-License-Identifier: MIT
/* The progress thread of a process group (progress.h). */
#include "progress.h"

#include <stdexcept>

namespace ccore_torch {

ProgressThread::ProgressThread() : thread_(&ProgressThread::loop, this)
{
}

ProgressThread::~ProgressThread()
{
	stop();
}

void ProgressThread::post(c10::intrusive_ptr<WorkCcore> work, std::function<void()> run)
{
	{
		std::lock_guard<std::mutex> lock(mutex_);

		if (!stopping_) {
			queue_.push_back(Job{work, std::move(run)});
			wake_.notify_one();
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
		std::lock_guard<std::mutex> lock(mutex_);

		if (stopping_ && !thread_.joinable())
			return;
		stopping_ = true;
		dropped.swap(queue_);
		wake_.notify_one();
	}
	for (auto &job : dropped)
		job.work->complete(std::make_exception_ptr(std::runtime_error(
			"ccore " + job.work->what() +
			": the process group was destroyed before it started")));
	if (thread_.joinable())
		thread_.join();
}

void ProgressThread::loop()
{
	for (;;) {
		Job job;

		{
			std::unique_lock<std::mutex> lock(mutex_);

			wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
			if (queue_.empty())
				return;
			job = std::move(queue_.front());
			queue_.pop_front();
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
