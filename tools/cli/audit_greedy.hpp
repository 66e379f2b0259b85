// --greedy-streams: greedy streams whose logits come from different float
// paths, compared under the near-tie rule (lib/greedy_stream.hpp).
//
// The file is JSON Lines, one stream per line:
//   {"name": "chat-1",            optional, default "stream i"
//    "logits": "chat-1.npy",      the library side's logits, row t = step t
//                                 (2-D (steps, V), or 1-D for one step);
//                                 a relative path is read from the folder
//                                 of the JSON Lines file
//    "ids": [17, 4, ...],         the other implementation's greedy ids
//    "prompt": [...], "generated": [...],   optional, as in a request
//    "params": {...}}             optional penalties; temperature must be 0
//                                 (the default here)
// The first min(rows, ids) steps are compared.
#pragma once

#include "tools/cli/audit.hpp"

namespace exactsample::cli {

// Exit status as Audit(); a bad line stops the audit with 2.
int AuditGreedyStreams(const AuditOptions& options);

}  // namespace exactsample::cli
