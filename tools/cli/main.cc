// exactsample: replay case files, audit parity, run the demo, time the
// sampler, list the SIMD targets.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <new>
#include <string>

#include "exactsample/version.h"

#include "tools/cli/audit.hpp"
#include "tools/cli/bench.hpp"
#include "tools/cli/commands.hpp"

namespace {

// Output that did not reach standard output (a full disk, a closed
// descriptor) fails the command: its results are lost, so it must not exit
// 0 in silence.
int Finish(int status) {
  std::cout.flush();
  const bool lost = std::fflush(stdout) != 0 || std::ferror(stdout) != 0 || !std::cout;
  if (!lost) return status;
  std::fputs("exactsample: cannot write standard output; the output is incomplete\n", stderr);
  return 2;
}

// The first argument when it is no option and names no command, else null.
const char* UnknownCommand(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return nullptr;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->check_name(argv[1])) return nullptr;
  }
  return argv[1];
}

}  // namespace

int main(int argc, char** argv) {
  using exactsample::Engine;
  namespace cli = exactsample::cli;
  CLI::App app{"exactsample: next-token sampling, bit-exact with the spec"};
  app.require_subcommand(1);
  // A flag takes no value: `--json=0` or `--supported=2` is bad usage.
  app.option_defaults()->disable_flag_override();
  app.set_version_flag("--version", "exactsample " EXACTSAMPLE_VERSION_STRING,
                       "Print the version and exit");

  cli::EngineChoice choice;
  std::string file, engine = "fast";
  auto* replay = app.add_subcommand(
      "replay", "Sample every case of a replay file; one JSON line per case");
  replay->add_option("FILE", file, "JSON object {\"cases\": [...]}; - for standard input")
      ->required();
  replay->add_option("--engine", engine, "fast (default) or reference")
      ->check(CLI::IsMember({"fast", "reference"}));
  replay->add_option("--target", choice.target,
                     "run the fast engine on this SIMD target (see `targets`)");

  cli::AuditOptions audit_options;
  auto* audit = cli::AddAuditCommand(app, audit_options);

  cli::BenchOptions bench_options;
  auto* bench = cli::AddBenchCommand(app, bench_options);

  auto* demo = app.add_subcommand(
      "demo", "Sample 16 tokens from a built-in 128256-id row with each engine");

  bool supported_only = false;
  auto* targets = app.add_subcommand(
      "targets", "The SIMD targets compiled in and which this CPU supports");
  targets->add_flag("--supported", supported_only,
                    "only supported targets, one name per line");

  if (const char* name = UnknownCommand(app, argc, argv)) {
    std::fprintf(stderr,
                 "exactsample: unknown command \"%s\"; the commands are replay, audit, "
                 "bench, demo and targets (see --help)\n",
                 name);
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // --help and --version print here
    return Finish(rc == 0 ? 0 : 2);
  }
  choice.engine = engine == "reference" ? Engine::reference : Engine::fast;
  // Out of memory anywhere: say so and exit 2 at once, without unwinding
  // (nlohmann's destructors allocate, so unwinding could fail again). Lines
  // already printed were flushed.
  std::set_new_handler([] {
    std::fputs("exactsample: out of memory\n", stderr);
    std::_Exit(2);
  });
  if (*replay) return Finish(cli::Replay(file, choice));
  if (*audit) return Finish(cli::Audit(audit_options));
  if (*bench) return Finish(cli::Bench(bench_options));
  if (*demo) return Finish(cli::Demo());
  if (*targets) return Finish(cli::Targets(supported_only));
  return 2;
}
