#!/usr/bin/env bash
# The disaggregated case end to end: a prefill process samples the first
# token and reports the draws it consumed; a fresh decode process resumes
# stream(seed, 4) advanced by that count. The tokens must equal one process
# sampling the whole stream, bit for bit.
set -euo pipefail
bin=${1:?usage: handoff_check.sh PATH/TO/c_consumer}
for seed in 0 7 123456789; do
  whole=$("$bin" stream "$seed" 12)
  prefill=$("$bin" prefill "$seed")
  first=$(sed -n 1p <<<"$prefill")
  draws=$(sed -n 's/^draws //p' <<<"$prefill")
  rest=$("$bin" decode "$seed" "$draws" "${first%% *}" 12)
  if [ "$whole" != "$(printf '%s\n%s' "$first" "$rest")" ]; then
    echo "hand-off mismatch for seed $seed"; diff <(echo "$whole") <(printf '%s\n%s\n' "$first" "$rest") || true
    exit 1
  fi
done
echo "hand-off: 3 passed, 0 failed"
