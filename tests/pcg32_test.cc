#include <gtest/gtest.h>
TEST(Pcg32, Placeholder) {}
