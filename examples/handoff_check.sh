#!/usr/bin/env bash
# The disaggregated case end to end, stateless and on a sequence. Stateless:
# a prefill process samples the first token and reports the draws it
# consumed; a fresh decode process resumes
# stream(seed, EXACTSAMPLE_PURPOSE_SAMPLE) advanced by that count. Sequence: the prefill process writes the sequence's snapshot to a
# file, which a fresh decode process restores and continues. Every way must
# give the tokens of one process sampling the whole stream statelessly, bit
# for bit.
set -euo pipefail
bin=${1:?usage: handoff_check.sh PATH/TO/c_consumer}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
same() {  # same NAME WANT GOT
  if [ "$2" != "$3" ]; then
    echo "hand-off mismatch: $1"; diff <(echo "$2") <(echo "$3") || true
    exit 1
  fi
}
passed=0
for seed in 0 7 123456789; do
  whole=$("$bin" stream "$seed" 12)
  prefill=$("$bin" prefill "$seed")
  first=$(sed -n 1p <<<"$prefill")
  draws=$(sed -n 's/^draws //p' <<<"$prefill")
  rest=$("$bin" decode "$seed" "$draws" "${first%% *}" 12)
  same "stateless, seed $seed" "$whole" "$(printf '%s\n%s' "$first" "$rest")"
  same "sequence in one process, seed $seed" "$whole" "$("$bin" seq-stream "$seed" 12)"
  first=$("$bin" seq-prefill "$seed" "$dir/snapshot")
  rest=$("$bin" seq-decode "$dir/snapshot" "${first%% *}" 12)
  same "sequence snapshot, seed $seed" "$whole" "$(printf '%s\n%s' "$first" "$rest")"
  passed=$((passed + 3))
done
echo "hand-off: $passed passed, 0 failed"
