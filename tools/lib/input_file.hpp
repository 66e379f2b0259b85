// Reading a whole input file for the tools: "-" is standard input, and a
// path that names nothing readable (empty, missing, a directory, standard
// input included) or a read that fails (EIO) is an error that names it. Running out of memory throws std::bad_alloc, which
// the program reports as such.
#pragma once

#include <string>

#include "exactsample/exactsample.hpp"

namespace exactsample {

// The file's bytes, or an error (code invalid_parameter, field "file")
// whose message starts with the path ("-" for standard input).
Result<std::string> ReadInputFile(const std::string& path);

}  // namespace exactsample
