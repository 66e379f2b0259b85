// The helpers of one set of row buffers (the workspace's): the jobs they
// split the logprob's pass and step 9's through (RowJob), each made on
// first use and kept with the buffers its helpers read, so that a set a
// late helper is still inside is set aside together with its jobs. The
// engine asks here for a pass's threads and announces the logprob's pass;
// it names no job and no claim.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// Whether the library pool's helpers arrive in time to help. On cores busy
// with other work a helper called for a row may start only once the caller
// has done the pass alone, and the call then pays for calling it. After a
// call whose split pass helpers computed less than one piece in eight of,
// the next calls run on the caller alone: one, then twice as many after
// each such call in a row, up to kMaxAlone; a split they served ends the
// run.
class Turnout {
 public:
  // Whether the next call splits (false uses up one call alone).
  bool Split() {
    if (alone_ == 0) return true;
    --alone_;
    return false;
  }
  void Record(bool served) {
    run_ = served ? 0 : std::min(run_ == 0 ? 1 : 2 * run_, kMaxAlone);
    alone_ = run_;
  }

 private:
  static constexpr uint32_t kMaxAlone = 64;
  uint32_t run_ = 0;    // calls alone after the last unserved split
  uint32_t alone_ = 0;  // of which still to come
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
    if (Team(threads, n) == 1) {
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
    const int team = Team(threads, vocab);
    if (team == 1) return {};
    if (!logprob_job_) logprob_job_ = std::make_unique<RowJob>();
    logprob_job_->Announce(executor, team);
    return Announcement(logprob_job_.get());
  }
  // A call over a row of `vocab` ids starts: whether its passes split
  // follows the helpers' turnout on the library pool (a host's executor
  // decides for its own threads).
  void BeginCall(Executor* executor, int threads, size_t vocab) {
    call_alone_ = false;
    if (RowTeam(vocab, threads) == 1 || executor != nullptr || !FollowsTurnout()) return;
    for (std::unique_ptr<RowJob>* job : {&logprob_job_, &kept_job_}) {
      if (!*job) continue;
      if (const std::optional<bool> served = (*job)->TakeServed()) turnout_.Record(*served);
    }
    call_alone_ = !turnout_.Split();
  }
  // Wakes the library pool's sleeping workers for a call whose passes over
  // n ids will split (WakeHelpers).
  void WakeFor(Executor* executor, int threads, size_t n) const {
    if (Team(threads, n) > 1) WakeHelpers(executor);
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
  // RowTeam's threads, or 1 in a call that runs alone (BeginCall).
  int Team(int threads, size_t n) const { return call_alone_ ? 1 : RowTeam(n, threads); }
  static bool Busy(const std::unique_ptr<RowJob>& job) { return job != nullptr && job->Busy(); }

  std::unique_ptr<RowJob> logprob_job_;
  std::unique_ptr<RowJob> kept_job_;
  Turnout turnout_;
  bool call_alone_ = false;  // this call's passes run on the caller alone
};

}  // namespace exactsample::threads
