// C bindings over Google Benchmark 1.7 (see bench.h).
//
// Nothing here may let a C++ exception reach the C callers: every exported
// function either cannot throw or catches everything.
#include "core/bench.h"

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace tb_bench_detail {

// One registered C benchmark. Run settings are kept here and applied to the
// Google Benchmark object only just before running, because Iterations() and
// MinTime() are mutually exclusive there (a CHECK aborts if both are set):
// here the later call simply wins.
struct Entry {
  tb_bench_fn fn = nullptr;
  void *arg = nullptr;
  void (*free_arg)(void *) = nullptr;
  benchmark::internal::Benchmark *bm = nullptr;
  int64_t iterations = 0;  // > 0: fixed count
  double min_time = 0.0;   // > 0: minimum time
  bool aggregates_only = false;
  std::string name;
  // Google Benchmark calls the function several times (iteration estimate,
  // repetitions): count a failing benchmark once.
  std::atomic<bool> failed{false};
};

}  // namespace tb_bench_detail

// What the C callback sees: the running state and the benchmark it belongs to.
struct tb_bench_state {
  benchmark::State *s;
  tb_bench_detail::Entry *e;
};

namespace {

using tb_bench_detail::Entry;

std::atomic<int> g_failures{0};
// Set from a signal handler: lock-free, so a plain store there is safe.
std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "g_stop is stored from a signal handler");
const Entry *g_running_entry = nullptr;  // the row whose repetitions are under way
int g_repetitions = 1;
int (*g_keep)(const char *) = nullptr;
int (*g_aggregates_only)(const char *) = nullptr;
bool g_last_skipped = false;  // the last registration was filtered out
std::string g_help;

// Debian builds Google Benchmark without NDEBUG, so every run warns that the
// library "was built as DEBUG. Timings may be affected." and every JSON file
// says "library_build_type": "debug". The library's checks run on the CPU
// between timed iterations; the times reported here are manual, measured by
// the caller around its own launches (CUDA events in the sweeps), so the
// warning becomes a note that says so, and the context records it.
const char kDebugWarning[] = "***WARNING*** Library was built as DEBUG. Timings may be affected.\n";
const char kDebugNote[] =
    "***NOTE*** Google Benchmark was built as DEBUG (assertions on, as Debian ships it): the\n"
    "           times here are manual, from the caller's CUDA events, outside its checks\n";
const char kDebugContextKey[] = "benchmark_library_build";
const char kDebugContext[] =
    "debug (assertions on, as Debian ships it); times are manual, from the caller's CUDA events";

bool library_is_debug(const benchmark::BenchmarkReporter::Context &context) {
  std::ostringstream text;
  benchmark::BenchmarkReporter::PrintBasicContext(&text, context);
  return text.str().find(kDebugWarning) != std::string::npos;
}

// Google Benchmark names a run by its registered name plus the settings it
// ran with (/iterations:N, /repeats:N, /manual_time, ...). Those change with
// flags, so the reporters below drop them: a row keeps its registered name.
template <class Base>
class StableNameReporter : public Base {
 public:
  using Base::Base;
  using Run = benchmark::BenchmarkReporter::Run;
  using Context = benchmark::BenchmarkReporter::Context;

  // The context goes to the error stream (console, CSV): the same text, with
  // the DEBUG warning replaced by the note.
  bool ReportContext(const Context &context) override {
    std::ostringstream text;
    std::ostream &err = this->GetErrorStream();
    this->SetErrorStream(&text);
    const bool ok = Base::ReportContext(context);
    this->SetErrorStream(&err);
    std::string s = text.str();
    const size_t at = s.find(kDebugWarning);
    if (at != std::string::npos) s.replace(at, sizeof kDebugWarning - 1, kDebugNote);
    err << s;
    return ok;
  }

  void ReportRuns(const std::vector<Run> &runs) override {
    std::vector<Run> renamed(runs);
    for (Run &r : renamed) {
      r.run_name.min_time.clear();
      r.run_name.min_warmup_time.clear();
      r.run_name.iterations.clear();
      r.run_name.repetitions.clear();
      r.run_name.time_type.clear();
      r.run_name.threads.clear();
    }
    Base::ReportRuns(renamed);
  }
};

// Google Benchmark deprecates its CSV reporter but still honours
// --benchmark_format=csv and --benchmark_out_format=csv, and so does this.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
using CSVBase = StableNameReporter<benchmark::CSVReporter>;
#pragma GCC diagnostic pop

// Its CSV reporter takes the columns from the first row and asserts that no
// later row brings a counter of its own (and a library with assertions on
// aborts there): sweep rows do (l2_resident on small sizes only, none on a
// failed row). Rows are held until the end and written in one piece, under
// the columns of them all.
class BufferedCSVReporter : public CSVBase {
 public:
  // A file keeps to the table: the context (host, CPU, the sweep's keys)
  // goes to the display, and to a JSON file.
  explicit BufferedCSVReporter(bool with_context = true) : with_context_(with_context) {}
  bool ReportContext(const Context &context) override {
    return with_context_ ? CSVBase::ReportContext(context) : true;
  }
  void ReportRuns(const std::vector<Run> &runs) override { held_.insert(held_.end(), runs.begin(), runs.end()); }
  void Finalize() override {
    if (!held_.empty()) CSVBase::ReportRuns(held_);
    held_.clear();
    CSVBase::Finalize();
  }

 private:
  bool with_context_;
  std::vector<Run> held_;
};

// Counts the benchmarks the filter selects, and runs none: its ReportContext
// declines, which makes Google Benchmark return before running anything.
class CountingReporter : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context &context) override {
    debug = library_is_debug(context);
    return false;
  }
  void ReportRuns(const std::vector<Run> &) override {}
  bool debug = false;
};

// "[i/N] name  elapsed, ~left" on stderr after each row: one line a row, as
// fit for a log as for a terminal.
class Progress {
 public:
  void start(size_t total) {
    total_ = total;
    done_ = 0;
    start_ = std::chrono::steady_clock::now();
  }
  void row(const std::string &name) {
    if (total_ == 0) return;
    ++done_;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string line = "[" + std::to_string(done_) + "/" + std::to_string(total_) + "] " + name + "  " +
                       duration(elapsed);
    if (done_ < total_) line += ", ~" + duration(elapsed / done_ * (total_ - done_)) + " left";
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
  }

 private:
  static std::string duration(double s) {
    char buf[32];
    const long t = static_cast<long>(s + 0.5);
    if (t < 60) std::snprintf(buf, sizeof buf, "%lds", t);
    else if (t < 3600) std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
    else std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, t / 60 % 60);
    return buf;
  }
  size_t total_ = 0, done_ = 0;
  std::chrono::steady_clock::time_point start_;
};

// The display: reports each row as Base does, then its progress line.
template <class Base>
class Display : public Base {
 public:
  using Run = benchmark::BenchmarkReporter::Run;
  template <class... Args>
  explicit Display(Progress *progress, Args... args) : Base(args...), progress_(progress) {}
  void ReportRuns(const std::vector<Run> &runs) override {
    Base::ReportRuns(runs);
    // The row first, then its progress, where both go to one log.
    this->GetOutputStream().flush();
    std::fflush(stdout);
    if (progress_ != nullptr && !runs.empty()) progress_->row(runs.front().run_name.function_name);
  }

 private:
  Progress *progress_;
};

// Owns the entries; its destructor releases the arguments still held at exit
// (tb_bench_main never called, or the process left through exit() inside
// Google Benchmark, e.g. --help or an unwritable --benchmark_out).
struct Registry {
  std::vector<std::unique_ptr<Entry>> entries;

  void release_args() noexcept {
    for (auto &e : entries) {
      if (e->free_arg != nullptr) e->free_arg(e->arg);
      e->free_arg = nullptr;
      e->arg = nullptr;
    }
  }
  ~Registry() { release_args(); }
};

// Function-local static: safe to use from other translation units' static
// initialisers, and destroyed at exit.
Registry &registry() {
  static Registry r;
  return r;
}

Entry *last_entry() {
  auto &v = registry().entries;
  return v.empty() || g_last_skipped ? nullptr : v.back().get();
}

void print_help() {
  benchmark::PrintDefaultHelp();
  std::fprintf(stdout, "          [--tb_list={true|false}]  (alias of --benchmark_list_tests)\n");
  std::fprintf(stdout, "          [--tb_progress={0|1}]  \"[i/N] row  elapsed, ~left\" on stderr after each row (default 1)\n");
  if (!g_help.empty()) std::fputs(g_help.c_str(), stdout);
}

}  // namespace

extern "C" {

int tb_bench_register(const char *name, tb_bench_fn fn, void *arg, void (*free_arg)(void *)) {
  if (name == nullptr || name[0] == '\0' || fn == nullptr) return -1;
  g_last_skipped = g_keep != nullptr && !g_keep(name);
  if (g_last_skipped) {
    if (free_arg != nullptr) free_arg(arg);
    return 1;
  }
  try {
    auto e = std::make_unique<Entry>();
    e->fn = fn;
    e->arg = arg;
    e->name = name;
    e->free_arg = free_arg;
    Entry *raw = e.get();
    // Reserve the slot first so that registering cannot leave a Google
    // Benchmark entry pointing at an Entry we failed to keep.
    registry().entries.reserve(registry().entries.size() + 1);
    raw->bm = benchmark::RegisterBenchmark(name, [raw](benchmark::State &s) {
      // Once stopped, a row already under way keeps its repetitions
      // together; later rows are not started.
      if (g_stop.load(std::memory_order_relaxed) && raw != g_running_entry) {
        s.SkipWithError(TB_BENCH_NOT_MEASURED);
        return;
      }
      g_running_entry = raw;
      tb_bench_state st{&s, raw};
      raw->fn(&st, raw->arg);
    });
    raw->bm->UseManualTime();
    registry().entries.push_back(std::move(e));
    return 0;
  } catch (const std::exception &) {
    return -1;
  } catch (...) {
    return -1;
  }
}

void tb_bench_set_iterations(int64_t iterations) {
  Entry *e = last_entry();
  if (e == nullptr || iterations <= 0) return;
  e->iterations = iterations;
  e->min_time = 0.0;
}

void tb_bench_set_min_time(double seconds) {
  Entry *e = last_entry();
  if (e == nullptr || !(seconds > 0.0)) return;
  e->min_time = seconds;
  e->iterations = 0;
}

void tb_bench_set_repetitions(int repetitions) { g_repetitions = repetitions > 1 ? repetitions : 1; }

void tb_bench_set_aggregates_only(void) {
  Entry *e = last_entry();
  if (e != nullptr) e->aggregates_only = true;
}

void tb_bench_set_register_filter(int (*keep)(const char *name)) { g_keep = keep; }

void tb_bench_set_aggregates_only_for(int (*pred)(const char *name)) { g_aggregates_only = pred; }

void tb_bench_set_help(const char *text) {
  try {
    g_help = text != nullptr ? text : "";
  } catch (...) {
  }
}

int tb_bench_keep_running(tb_bench_state *st) { return st->s->KeepRunning() ? 1 : 0; }

int64_t tb_bench_iterations(const tb_bench_state *st) {
  return static_cast<int64_t>(st->s->iterations());
}

const char *tb_bench_name(const tb_bench_state *st) { return st->e->name.c_str(); }

void tb_bench_set_iteration_time(tb_bench_state *st, double seconds) {
  st->s->SetIterationTime(seconds);
}

void tb_bench_set_items_processed(tb_bench_state *st, int64_t items) {
  try {
    st->s->SetItemsProcessed(items);
  } catch (...) {
  }
}

void tb_bench_set_bytes_processed(tb_bench_state *st, int64_t bytes) {
  try {
    st->s->SetBytesProcessed(bytes);
  } catch (...) {
  }
}

void tb_bench_set_label(tb_bench_state *st, const char *label) {
  try {
    st->s->SetLabel(label != nullptr ? label : "");
  } catch (...) {
  }
}

void tb_bench_set_counter(tb_bench_state *st, const char *name, double value, tb_counter_kind kind) {
  if (name == nullptr) return;
  try {
    // Iteration-invariant rate: value * iterations / (manual) seconds, i.e. a
    // per-iteration quantity shown per second.
    st->s->counters[name] = kind == TB_COUNTER_RATE_PER_ITER
                                ? benchmark::Counter(value, benchmark::Counter::kIsIterationInvariantRate)
                                : benchmark::Counter(value);
  } catch (...) {
  }
}

void tb_bench_skip_with_error(tb_bench_state *st, const char *message) {
  try {
    // Google Benchmark writes error_occurred / error_message to the JSON.
    st->s->SkipWithError(message != nullptr ? message : "error");
  } catch (...) {
  }
  if (!st->e->failed.exchange(true)) g_failures.fetch_add(1);
}

void tb_bench_add_context(const char *key, const char *value) {
  if (key == nullptr) return;
  try {
    benchmark::AddCustomContext(key, value != nullptr ? value : "");
  } catch (...) {
  }
}

int tb_bench_main(int argc, char **argv) {
  int rc = 1;
  try {
    // Work on a copy of argv: --tb_list is rewritten to its Google Benchmark
    // equivalent, --tb_progress is taken out, and Initialize() reorders what
    // it is given.
    std::vector<std::string> rewritten;
    rewritten.reserve(argc > 0 ? static_cast<size_t>(argc) : 0);
    std::vector<char *> args;
    args.reserve(static_cast<size_t>(argc > 0 ? argc : 0) + 1);
    bool progress = true, bad_flag = false;
    for (int i = 0; i < argc; ++i) {
      char *a = argv[i];
      if (i > 0 && a != nullptr) {
        if (std::strcmp(a, "--tb_list") == 0) {
          rewritten.emplace_back("--benchmark_list_tests=true");
          a = &rewritten.back()[0];
        } else if (std::strncmp(a, "--tb_list=", 10) == 0) {
          rewritten.emplace_back(std::string("--benchmark_list_tests=") + (a + 10));
          a = &rewritten.back()[0];
        } else if (std::strcmp(a, "--tb_progress") == 0 || std::strcmp(a, "--tb_progress=1") == 0) {
          progress = true;
          continue;
        } else if (std::strcmp(a, "--tb_progress=0") == 0) {
          progress = false;
          continue;
        } else if (std::strncmp(a, "--tb_progress=", 14) == 0) {
          std::fprintf(stderr, "--tb_progress takes 0 or 1, not '%s'\n", a + 14);
          bad_flag = true;
          continue;
        }
      }
      args.push_back(a);
    }
    args.push_back(nullptr);
    // Read before Initialize(), which removes the flags it knows; the last
    // of a flag given twice wins, as there.
    std::string format = "console", out_format = "json", color = "auto";
    bool has_out = false;
    for (int i = 1; i < argc; ++i) {
      if (argv[i] == nullptr) continue;
      if (std::strncmp(argv[i], "--benchmark_format=", 19) == 0) format = argv[i] + 19;
      if (std::strncmp(argv[i], "--benchmark_out_format=", 23) == 0) out_format = argv[i] + 23;
      if (std::strncmp(argv[i], "--benchmark_out=", 16) == 0) has_out = argv[i][16] != '\0';
      if (std::strncmp(argv[i], "--benchmark_color=", 18) == 0) color = argv[i] + 18;
    }
    int n = static_cast<int>(args.size()) - 1;
    benchmark::Initialize(&n, args.data(), print_help);
    if (benchmark::ReportUnrecognizedArguments(n, args.data()) || bad_flag) {
      rc = 1;
    } else {
      for (auto &e : registry().entries) {
        if (e->iterations > 0) e->bm->Iterations(e->iterations);
        else if (e->min_time > 0.0) e->bm->MinTime(e->min_time);
        if (g_repetitions > 1) {
          e->bm->Repetitions(g_repetitions);
          e->bm->DisplayAggregatesOnly(true);
          if (e->aggregates_only || (g_aggregates_only && g_aggregates_only(e->name.c_str())))
            e->bm->ReportAggregatesOnly(true);
        }
      }
      // A first pass through the filter counts the rows (for the progress
      // lines) and runs nothing; one that matches nothing has said so.
      CountingReporter counter, count_file;
      std::ostringstream discard;
      counter.SetOutputStream(&discard);  // names, under --benchmark_list_tests
      const size_t total = benchmark::RunSpecifiedBenchmarks(&counter, has_out ? &count_file : nullptr);
      if (total > 0) {
        if (counter.debug) benchmark::AddCustomContext(kDebugContextKey, kDebugContext);
        Progress steps;
        steps.start(progress ? total : 0);
        // The display follows --benchmark_format and --benchmark_color as
        // Google Benchmark's own does: no colour codes in a log.
        const bool colored = color == "auto" ? isatty(STDOUT_FILENO) != 0
                                             : !(color == "false" || color == "no" || color == "0");
        Display<StableNameReporter<benchmark::ConsoleReporter>> console(
            &steps, colored ? benchmark::ConsoleReporter::OO_ColorTabular
                            : benchmark::ConsoleReporter::OO_Tabular);
        Display<StableNameReporter<benchmark::JSONReporter>> json(&steps);
        Display<BufferedCSVReporter> csv(&steps);
        benchmark::BenchmarkReporter *display =
            format == "json" ? static_cast<benchmark::BenchmarkReporter *>(&json)
            : format == "csv" ? static_cast<benchmark::BenchmarkReporter *>(&csv)
                              : &console;
        // The file follows --benchmark_out_format the same way.
        StableNameReporter<benchmark::JSONReporter> json_file;
        BufferedCSVReporter csv_file(false);
        StableNameReporter<benchmark::ConsoleReporter> console_file(benchmark::ConsoleReporter::OO_None);
        benchmark::BenchmarkReporter *file =
            !has_out                 ? nullptr
            : out_format == "csv"     ? static_cast<benchmark::BenchmarkReporter *>(&csv_file)
            : out_format == "console" ? static_cast<benchmark::BenchmarkReporter *>(&console_file)
                                      : &json_file;
        benchmark::RunSpecifiedBenchmarks(display, file);
      }
      rc = g_failures.load() != 0 ? 1 : 0;
    }
    benchmark::Shutdown();
  } catch (...) {
    rc = 1;
  }
  // The registered benchmarks would now point at released arguments: drop them
  // too (Google Benchmark runs once per process anyway).
  registry().release_args();
  registry().entries.clear();
  try {
    benchmark::ClearRegisteredBenchmarks();
  } catch (...) {
  }
  return rc;
}

int tb_bench_failures(void) { return g_failures.load(); }

void tb_bench_request_stop(void) { g_stop.store(true, std::memory_order_relaxed); }

int tb_bench_stop_requested(void) { return g_stop.load(std::memory_order_relaxed) ? 1 : 0; }

}  // extern "C"
