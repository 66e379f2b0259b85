// The scratch memory behind exactsample::Workspace (declared only as
// detail::WorkspaceImpl in the public header): the fast engine's
// per-vocabulary arrays, grown to the largest V seen and then reused, so a
// steady stream of calls does not allocate.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "exactsample/exactsample.hpp"
#include "lib/row_sums.hpp"

namespace exactsample::detail {

struct WorkspaceImpl {
  std::vector<double> l;         // penalised logits, f64 (8 bytes per id)
  std::vector<double> e;         // exp values of the kept set (8 bytes per id)
  std::vector<uint32_t> ids;     // kernel scratch: candidates, buckets (4)
  std::vector<int32_t> history;  // sorted prompt and generated ids
  std::vector<uint32_t> mask_bits;  // the mask's allowed ids, one bit each
  std::vector<int32_t> top;      // a compact K: ids ascending (top-k, or
  std::vector<double> top_l;     // top-p's candidates), their penalised
  std::vector<double> top_e;     // logits and e values
  std::vector<double> sums;      // the exp-sum pass's running sums (RowSums)

  // The same scratch as the int32 ids TopK keeps (signed and unsigned
  // views of one object may alias).
  std::span<int32_t> TopKScratch(size_t vocab) {
    return {reinterpret_cast<int32_t*>(ids.data()), vocab};
  }

  void Reserve(size_t vocab) {
    if (l.size() < vocab) {
      l.resize(vocab);
      e.resize(vocab);
      ids.resize(vocab);
      sums.resize(RowPieces::kMaxCount + 1);
    }
  }
};

// The library's way into a Workspace (its friend).
struct WorkspaceAccess {
  static WorkspaceImpl& Of(Workspace& workspace) { return *workspace.impl_; }
  static std::unique_ptr<WorkspaceImpl> Make() {
    return std::make_unique<WorkspaceImpl>();
  }
};

}  // namespace exactsample::detail
