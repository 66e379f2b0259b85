// The kept set K of the fast engine as dense arrays, shared by steps 6 to 11.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "lib/engine/row_sums.hpp"
#include "lib/engine/workspace.hpp"

namespace exactsample {

struct Logits;

// Entry j is the id id_of[j] (or j when id_of is null: K spans the row),
// with penalised logit l[j] and e[j] = exp(l[j] / T - M / T). Ids outside K
// have e[j] == 0 exactly, which leaves every ascending sum and the inverse
// CDF as the spec computes them over K.
struct KeptSet {
  const double* l;       // null on the f32-row path when K spans the row
  double* e;
  size_t n;
  const int32_t* id_of;  // ascending ids, or null
  double z;              // sum of e in ascending id order
  // The exp-sum pass's running sums of e, while e is its output unchanged.
  std::optional<RowSums> sums;
  // Not null while some pieces of e are elsewhere (ExpView): only Draw
  // reads K then, by piece or gathered.
  ScatteredPieces* scattered = nullptr;
  // With l null: the row, whose logits (Logits::At) the filters read for the
  // few ids they compact, or widen (WidenPenalisedRow) where they need all.
  const Logits* row = nullptr;
  bool stopped = false;  // its pass stopped (ExpView::stopped): nothing holds

  int32_t Id(size_t j) const {
    return id_of != nullptr ? id_of[j] : static_cast<int32_t>(j);
  }
  // The entry of an id of K.
  size_t Entry(int32_t id) const {
    return id_of != nullptr ? static_cast<size_t>(std::lower_bound(id_of, id_of + n, id) - id_of)
                            : static_cast<size_t>(id);
  }
};

// The most ids a compact K holds: beyond it, compaction would cost more
// than it saves and push the workspace past ~24 bytes per vocabulary entry.
inline size_t CompactCapacity(size_t vocab) {
  return vocab / 16 > 1024 ? vocab / 16 : 1024;
}

// Whether K is compact in the workspace's top buffers already (top-k's K,
// or a prefix CompactPrefix moved there): few ids, which the filters cut
// as they are.
inline bool InTopBuffers(const KeptSet& kept, const detail::WorkspaceImpl& ws) {
  return kept.id_of != nullptr && kept.id_of == ws.top.data();
}

// Filters whose kept set is a prefix of (t desc, id asc) order continue on a
// compact K when it is small: the entries with e >= threshold (a prefix too,
// since e does not decrease as t grows). PrefixIds finds their entries, in
// ascending order, into ws.ids: it returns their count, or
// CompactCapacity(K.n) + 1 as soon as there are more. Where K has running
// sums, only the pieces whose mass can hold such an e are read.
size_t PrefixIds(const KeptSet& kept, double threshold, detail::WorkspaceImpl& ws);

// Moves the entries ws.ids[0..count) of K to the workspace's compact
// buffers, which K then is; Z is unchanged.
void MovePrefix(KeptSet& kept, size_t count, detail::WorkspaceImpl& ws);

// PrefixIds then MovePrefix; false, leaving K as it was, when more than
// CompactCapacity entries qualify.
bool CompactPrefix(KeptSet& kept, double threshold, detail::WorkspaceImpl& ws);

}  // namespace exactsample
