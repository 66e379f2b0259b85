// The helpers of one set of row buffers (the workspace's): the jobs they
// split the logprob's pass and step 9's through (RowJob), each made on
// first use and kept with the buffers its helpers read, so that a set a
// late helper is still inside is set aside together with its jobs. The
// engine asks here for a pass's threads and announces the logprob's pass;
// it names no job and no claim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "exactsample/executor.hpp"
#include "lib/threads/executor.hpp"
#include "lib/threads/row_passes.hpp"

namespace exactsample::threads {

// An announced pass's helpers, sent away (RowJob::Cancel) when the handle
// goes before the pass came (a pass that ran leaves none waiting). Empty:
// nothing was announced.
class [[nodiscard]] Announcement {
 public:
  Announcement() = default;
  explicit Announcement(RowJob* job) : job_(job) {}
  Announcement(Announcement&& other) noexcept : job_(std::exchange(other.job_, nullptr)) {}
  // The handle replaced is the one moved from's to cancel.
  Announcement& operator=(Announcement&& other) noexcept {
    std::swap(job_, other.job_);
    return *this;
  }
  ~Announcement() {
    if (job_ != nullptr) job_->Cancel();
  }

 private:
  RowJob* job_ = nullptr;
};

class RowHelpers {
 public:
  enum Pass : uint8_t {
    kLogprob,  // the logprob's pass
    kKept,     // step 9's pass, when it is another
  };

  // What `pass` over n ids split across `threads` needs, its alternate area
  // (RowThreads::recomputed_e) the one `area()` returns; threads == 1:
  // nothing, and `area` is not called. A job announced for a pass that
  // turns out to need no threads (a masked row's compacted logits) is
  // cancelled here.
  template <typename Area>
  RowThreads ForPass(Pass pass, int threads, size_t n, Executor* executor,
                     const Supersede& supersede, Area area) {
    std::unique_ptr<RowJob>& job = JobOf(pass);
    if (RowTeam(n, threads) == 1) {
      if (job) job->Cancel();
      return {.supersede = supersede};
    }
    if (!job) job = std::make_unique<RowJob>();
    return {threads, executor, job.get(), area(), nullptr, supersede};
  }

  // Announces the logprob's pass (RowJob::Announce) for a row of `vocab`
  // ids split across `threads`: its helpers wait for it, sent away if the
  // handle returned goes first.
  Announcement AnnounceLogprobPass(Executor* executor, int threads, size_t vocab) {
    const int team = RowTeam(vocab, threads);
    if (team == 1) return {};
    if (!logprob_job_) logprob_job_ = std::make_unique<RowJob>();
    logprob_job_->Announce(executor, team);
    return Announcement(logprob_job_.get());
  }
  // The logprob pass's helpers while they wait for it, for the max pass
  // before it (WidenMaxPass); none when nothing is announced.
  WaitingHelpers AnnouncedLogprobPass() const {
    return WaitingHelpers(logprob_job_ != nullptr && logprob_job_->Announced() ? logprob_job_.get()
                                                                               : nullptr);
  }

  // Whether a helper is still inside one of the jobs.
  bool Busy() const { return Busy(logprob_job_) || Busy(kept_job_); }
  // Returns once no helper is inside either job.
  void WaitIdle() const {
    for (const std::unique_ptr<RowJob>* job : {&logprob_job_, &kept_job_}) {
      if (*job) (*job)->WaitIdle();
    }
  }

  // The job of `pass`, or null before its first split (for tests that
  // watch its helpers leave).
  const RowJob* Job(Pass pass) const { return (pass == kLogprob ? logprob_job_ : kept_job_).get(); }

 private:
  std::unique_ptr<RowJob>& JobOf(Pass pass) { return pass == kLogprob ? logprob_job_ : kept_job_; }
  static bool Busy(const std::unique_ptr<RowJob>& job) { return job != nullptr && job->Busy(); }

  std::unique_ptr<RowJob> logprob_job_;
  std::unique_ptr<RowJob> kept_job_;
};

}  // namespace exactsample::threads
