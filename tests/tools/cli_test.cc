// The command-line program, run as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "exactsample.h"
#include "tests/support/test_util.hpp"

namespace exactsample {
namespace {

struct Output {
  int status;
  std::string out;
};

Output RunCli(const std::string& args) {
  const std::string cmd = std::string(EXACTSAMPLE_CLI) + " " + args + " 2>/dev/null";
  FILE* pipe = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int raw = pclose(pipe);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

std::vector<nlohmann::json> Lines(const std::string& out) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

TEST(Cli, VersionPrintsTheVersionAndExitsZero) {
  const auto r = RunCli("--version");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, std::string("exactsample ") + EXACTSAMPLE_VERSION_STRING + "\n");
  EXPECT_EQ(r.out, std::string("exactsample ") + exactsample_version() + "\n");
}

// A replayed value against a fixture's: numbers by their f64 bits (ids too,
// exactly), arrays element by element, the rest (an error's text) as is.
void ExpectSame(const nlohmann::json& got, const nlohmann::json& want, const std::string& at) {
  if (want.is_number()) {
    ASSERT_TRUE(got.is_number()) << at << ": " << got;
    EXPECT_EQ(test::Bits(got.get<double>()), test::Bits(want.get<double>())) << at;
  } else if (want.is_array()) {
    ASSERT_TRUE(got.is_array() && got.size() == want.size()) << at << ": " << got;
    for (size_t j = 0; j < want.size(); ++j) {
      ExpectSame(got[j], want[j], at + "[" + std::to_string(j) + "]");
    }
  } else {
    EXPECT_EQ(got, want) << at;
  }
}

// Replays a fixture on both engines: every expected field it holds, bit for
// bit, and no field it does not expect.
void ExpectReplayReproduces(const std::string& file, int status) {
  for (const char* engine : {"reference", "fast"}) {
    const auto r = RunCli("replay " + std::string(EXACTSAMPLE_TEST_DATA) + "/" + file +
                          " --engine " + engine);
    EXPECT_EQ(r.status, status) << engine;
    const auto cases = test::LoadJson(file)["cases"];
    const auto lines = Lines(r.out);
    ASSERT_EQ(lines.size(), cases.size()) << engine;
    for (size_t i = 0; i < cases.size(); ++i) {
      const std::string name = cases[i]["name"];
      EXPECT_EQ(lines[i]["name"], name);
      for (const char* field :
           {"ids", "logprobs", "processed_logprobs", "top_logprobs", "error"}) {
        if (cases[i].contains(field)) {
          ExpectSame(lines[i][field], cases[i][field], std::string(engine) + " " + name + "." + field);
        } else if (std::string(field) != "processed_logprobs") {  // the golden file has none
          EXPECT_FALSE(lines[i].contains(field)) << engine << " " << name << "." << field;
        }
      }
    }
  }
}

TEST(Cli, ReplayReproducesTheGoldenFixture) { ExpectReplayReproduces("sampler_golden.json", 0); }

// Cases per sampler of docs/llama-samplers.md, written by tools/spec_sampler.py.
TEST(Cli, ReplayReproducesTheChainFixture) { ExpectReplayReproduces("chain_golden.json", 1); }

TEST(Cli, ReplayReportsBadCasesAndRunsTheOthers) {
  const std::string path = WriteTemp("mixed.json", R"({"cases": [
    {"name": "nan", "logits": [1.0, "nan"], "seed": 1},
    {"name": "good", "logits": ["-inf", 2.0, "2.5"], "params": {"top_k": 1}, "seed": 7, "steps": 3},
    {"name": "bad temperature", "logits": [1.0, 2.0], "params": {"temperature": -1}, "seed": 1},
    {"name": "id out of range", "logits": [1.0, 2.0], "prompt": [5], "seed": 1},
    {"name": "unknown field", "logits": [1.0], "params": {"top_q": 1}, "seed": 1}
  ]})");
  const auto r = RunCli("replay " + path + " --engine reference");
  EXPECT_EQ(r.status, 1);
  const auto lines = Lines(r.out);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_NE(lines[0]["error"].get<std::string>().find("logits[1] = nan"), std::string::npos);
  EXPECT_EQ(lines[1]["ids"], nlohmann::json::array({2, 2, 2}));
  EXPECT_NE(lines[2]["error"].get<std::string>().find("temperature = -1"), std::string::npos);
  EXPECT_NE(lines[3]["error"].get<std::string>().find("prompt[0] = 5: outside [0, V) with V = 2"), std::string::npos);
  EXPECT_NE(lines[4]["error"].get<std::string>().find("params.top_q"), std::string::npos);
}

TEST(Cli, UnreadableFileOrBadUsageExitsWithTwo) {
  EXPECT_EQ(RunCli("replay /nonexistent/file.json").status, 2);
  EXPECT_EQ(RunCli("replay " + WriteTemp("broken.json", "{\"cases\": [")).status, 2);
  EXPECT_EQ(RunCli("replay " + WriteTemp("nocases.json", "{}")).status, 2);
  EXPECT_EQ(RunCli("replay x.json --engine quick").status, 2);
  EXPECT_EQ(RunCli("frobnicate").status, 2);
  EXPECT_EQ(RunCli(std::string("replay ") + EXACTSAMPLE_TEST_DATA +
                "/sampler_golden.json --target NOSUCH")
                .status,
            2);
}

TEST(Cli, TargetsListsSupportedTargetsThatReplayAccepts) {
  const auto r = RunCli("targets --supported");
  EXPECT_EQ(r.status, 0);
  std::istringstream in(r.out);
  const std::string replay =
      std::string("replay ") + EXACTSAMPLE_TEST_DATA + "/sampler_golden.json --engine fast --target ";
  int count = 0;
  for (std::string name; std::getline(in, name); ++count) {
    EXPECT_EQ(RunCli(replay + name).status, 0)
        << name;
  }
  EXPECT_GT(count, 0);
}

// The architecture CMake built for, and the emulator ctest runs the program
// under in a cross build: what `targets`, `audit` and `bench` must report.
std::string ExpectedArchitecture() {
  const std::string emulator = EXACTSAMPLE_TEST_EMULATOR;
  if (emulator.empty()) return EXACTSAMPLE_TEST_ARCH;
  return std::string(EXACTSAMPLE_TEST_ARCH) + " under " +
         emulator.substr(emulator.rfind('/') + 1) + " (emulated)";
}

TEST(Cli, TargetsAuditAndBenchReportTheArchitecture) {
  const std::string expected = ExpectedArchitecture();
  const auto targets = RunCli("targets");
  EXPECT_EQ(targets.status, 0);
  EXPECT_NE(targets.out.find("\narchitecture: " + expected + "\n"), std::string::npos)
      << targets.out;

  const auto audit = RunCli(std::string("audit --json --replay ") + EXACTSAMPLE_TEST_DATA +
                            "/sampler_golden.json");
  EXPECT_EQ(audit.status, 0);
  EXPECT_EQ(Lines(audit.out).back()["architecture"], expected) << audit.out;

  const auto bench = RunCli("bench --json --vocab 256 --iters 1 --config plain");
  ASSERT_EQ(bench.status, 0);
  const std::string emulator = EXACTSAMPLE_TEST_EMULATOR;
  for (const auto& row : Lines(bench.out)) {
    EXPECT_EQ(row["architecture"], EXACTSAMPLE_TEST_ARCH);
    if (emulator.empty()) {
      EXPECT_TRUE(row["emulator"].is_null()) << row;
    } else {
      EXPECT_EQ(row["emulator"], emulator.substr(emulator.rfind('/') + 1));
    }
  }
  const auto table = RunCli("bench --vocab 256 --iters 1 --config plain");
  ASSERT_EQ(table.status, 0);
  EXPECT_NE(table.out.find(", on " + expected + "\n"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("not the hardware's") != std::string::npos, !emulator.empty())
      << table.out;
}

TEST(Cli, DemoRunsAndEnginesAgree) {
  const auto r = RunCli("demo");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("every engine returned the same ids"), std::string::npos);
}

}  // namespace
}  // namespace exactsample
