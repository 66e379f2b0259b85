// The scratch memory behind exactsample::Workspace.
#pragma once

#include "exactsample/exactsample.hpp"

namespace exactsample {

struct Workspace::Impl {};

}  // namespace exactsample
