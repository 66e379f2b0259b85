// What an exp-sum pass leaves for the steps: Z, the running sums of e at its
// piece boundaries (step 11 is decided from them, lib/engine/draw.cc,
// instead of walking every id before the draw's), and where its e values
// are. The steps read these through ExpView alone, whoever computed them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>

namespace exactsample {

// How a row of n ids is cut into pieces: the exp-sum pass's unit of work,
// split between threads or not. Pieces are long enough for the exact sum's
// blocks and short enough that a thread waiting for one rarely waits long
// and that step 11 sums little of one.
struct RowPieces {
  static constexpr size_t kMinLength = 4096;
  static constexpr size_t kMaxCount = 512;

  size_t n;
  size_t length;  // ids per piece; the last may be shorter
  size_t count;

  static RowPieces Of(size_t n) {
    const size_t length = std::max(kMinLength, (n + kMaxCount - 1) / kMaxCount);
    return {n, length, (n + length - 1) / length};
  }
  size_t Begin(size_t k) const { return k * length; }
  size_t Length(size_t k) const { return std::min(length, n - k * length); }
};

// at[k] is the sum of e[0 .. k * pieces.length) added in ascending id order
// (at[0] = 0, at[pieces.count] = Z).
struct RowSums {
  RowPieces pieces;
  std::span<const double> at;
};

// e values not all in the array the pass stored into: some pieces are in a
// second area (the same values). Where piece k is, and every piece in one
// array (the stored array itself once every piece is there again, else the
// second area, the others copied into it).
class ScatteredPieces {
 public:
  virtual const double* Piece(size_t k) const = 0;
  virtual double* Gather() = 0;

 protected:
  ~ScatteredPieces() = default;
};

// An exp-sum pass as the steps read it.
struct ExpView {
  double z;
  RowSums sums;
  // Not null when some pieces of e are not in the array the pass stored
  // into (only while that array is the pass's output unchanged).
  ScatteredPieces* scattered = nullptr;
  // The pass stopped before its end, as the call asked (its result is no
  // longer wanted): nothing above holds, and the call returns at once.
  bool stopped = false;
};

}  // namespace exactsample
