#pragma once
// A world of one's own as a C++ plugin: the one header a plugin includes. Header-only, it needs
// nothing but the C++ standard library and links against nothing of the lab: the lab and the plugin
// meet at a C interface (below), so a plugin loads into the `scalinglab` command, its MPI ranks and
// the Python module alike.
//
//   #include <scalinglab/world_plugin.hpp>
//   namespace slp = scalinglab::plugin;
//   SCALINGLAB_WORLD(world) {                       // world: slp::World&
//     slp::MeasureDef m;
//     m.name = "toy.error";
//     m.summary = "one line";
//     m.params = {slp::real("alpha", "2", "Zipf exponent", 1.01, 10)};
//     m.metrics = {{"error", "test error"}};
//     m.run = [](const slp::Args& a, slp::Result& r) {
//       std::mt19937_64 rng(a.seed());             // the lab's stream of this task
//       r.set("error", ...);
//     };
//     world.add(std::move(m));
//   }
//
// The lab checks each declaration as it checks its own measures' (names, types, ranges, defaults),
// adds `runs` and `seed`, and refuses a plugin built against another version of this interface.
// An exception thrown by `run` fails that task alone (reported with its message); a crash (a
// segfault) ends the process: plugins run in it, for speed.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// The version of the C interface below. The lab refuses a plugin whose version differs.
#define SCALINGLAB_PLUGIN_ABI 1

extern "C" {

typedef struct scalinglab_sink scalinglab_sink;  // the lab's, opaque

// What the lab gives a plugin for one call: where its results go.
typedef struct scalinglab_host {
  void (*set_scalar)(scalinglab_sink* sink, const char* name, double value);
  void (*set_series)(scalinglab_sink* sink, const char* name, const double* values, size_t count);
  void (*fail)(scalinglab_sink* sink, const char* message);  // the call failed: this message says why
} scalinglab_host;

// One task's parameters, in declaration order, `runs` and `seed` excluded.
typedef struct scalinglab_args {
  size_t count;
  const char* const* names;
  const char* const* texts;  // canonical text ("100", "0.5", "inf", a choice)
  const double* numbers;     // numeric value (NaN for choices and text)
  uint64_t seed;             // this task's key from the lab's streams: the same whatever the thread or rank
} scalinglab_args;

// Returns 0, or nonzero after host->fail.
typedef int (*scalinglab_call_fn)(const void* context, const scalinglab_args* args, const scalinglab_host* host,
                                  scalinglab_sink* sink);
// An estimate (operations, bytes) from the parameters; negative when it cannot be made.
typedef double (*scalinglab_estimate_fn)(const void* context, const scalinglab_args* args);

typedef struct scalinglab_measure_entry {
  const char* declaration_json;    // name, summary, details, deterministic, params, metrics
  const void* context;             // passed back to the functions
  scalinglab_call_fn run;          // one run: metrics through host->set_scalar / set_series
  scalinglab_call_fn check;        // the measure's own check of a parameter set (null: none)
  scalinglab_estimate_fn work;     // operations of one run, for --max-work and the plan (null: negligible)
  scalinglab_estimate_fn memory;   // peak bytes of one run, for --max-memory (null: a few MB)
} scalinglab_measure_entry;

typedef struct scalinglab_plugin_table {
  uint32_t abi;  // SCALINGLAB_PLUGIN_ABI of the header the plugin was built with
  const char* name;
  size_t count;
  const scalinglab_measure_entry* measures;
} scalinglab_plugin_table;

// The two entry points SCALINGLAB_WORLD defines, for a host of one's own (a test, a driver) to call.
__attribute__((visibility("default"))) uint32_t scalinglab_plugin_abi(void);
__attribute__((visibility("default"))) const scalinglab_plugin_table* scalinglab_plugin(void);

}  // extern "C"

namespace scalinglab::plugin {

// A task's parameters by name.
class Args {
 public:
  explicit Args(const scalinglab_args* a) : a_(a) {}
  double real(const std::string& name) const { return a_->numbers[index(name)]; }
  int64_t integer(const std::string& name) const { return static_cast<int64_t>(real(name)); }
  std::string text(const std::string& name) const { return a_->texts[index(name)]; }
  bool flag(const std::string& name) const { return text(name) == "true"; }
  bool has(const std::string& name) const {
    for (std::size_t i = 0; i < a_->count; ++i)
      if (name == a_->names[i]) return true;
    return false;
  }
  uint64_t seed() const { return a_->seed; }

 private:
  std::size_t index(const std::string& name) const {
    for (std::size_t i = 0; i < a_->count; ++i)
      if (name == a_->names[i]) return i;
    throw std::out_of_range("no parameter '" + name + "' in this measure's declaration");
  }
  const scalinglab_args* a_;
};

// Where a run's metrics go.
class Result {
 public:
  Result(const scalinglab_host* h, scalinglab_sink* s) : h_(h), s_(s) {}
  void set(const std::string& name, double value) const { h_->set_scalar(s_, name.c_str(), value); }
  void set_series(const std::string& name, const std::vector<double>& v) const {
    h_->set_series(s_, name.c_str(), v.data(), v.size());
  }

 private:
  const scalinglab_host* h_;
  scalinglab_sink* s_;
};

// A parameter's declaration; the lab checks it (docs/worlds.md lists the fields).
struct ParamDecl {
  std::string name, type, default_value, doc;
  double min = -std::numeric_limits<double>::infinity(), max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;
  bool same_world = false;      // a learner's parameter: every value of it sees the same world
  bool expression = false;      // may be a formula of other parameters ("d/8")
  ParamDecl& same_world_param() { same_world = true; return *this; }
  ParamDecl& allow_expression() { expression = true; return *this; }
};
inline ParamDecl real(std::string n, std::string def, std::string doc,
                      double lo = -std::numeric_limits<double>::infinity(), double hi = std::numeric_limits<double>::infinity()) {
  return {std::move(n), "real", std::move(def), std::move(doc), lo, hi, {}, false, false};
}
inline ParamDecl integer(std::string n, std::string def, std::string doc, double lo = 1,
                         double hi = std::numeric_limits<double>::infinity()) {
  return {std::move(n), "int", std::move(def), std::move(doc), lo, hi, {}, false, false};
}
// A positive integer or inf (a sample count T where inf is the population): real("T") is +inf then.
inline ParamDecl count(std::string n, std::string def, std::string doc, double lo = 1) {
  return {std::move(n), "count", std::move(def), std::move(doc), lo, std::numeric_limits<double>::infinity(), {}, false, false};
}
inline ParamDecl choice(std::string n, std::string def, std::vector<std::string> choices, std::string doc) {
  ParamDecl p;
  p.name = std::move(n), p.type = "choice", p.default_value = std::move(def), p.doc = std::move(doc);
  p.choices = std::move(choices);
  return p;
}
inline ParamDecl flag(std::string n, std::string def, std::string doc) {
  ParamDecl p;
  p.name = std::move(n), p.type = "bool", p.default_value = std::move(def), p.doc = std::move(doc);
  return p;
}

struct MetricDecl {
  std::string name, doc;
  bool series = false;
};

struct MeasureDef {
  std::string name;     // "world.name"
  std::string summary;  // one line
  std::string details;  // a paragraph for `describe`: conventions, the paper
  bool deterministic = false;  // ignores the seed (a theory): drawn dashed, run once
  std::vector<ParamDecl> params;
  std::vector<MetricDecl> metrics;
  std::function<void(const Args&, Result&)> run;
  std::function<void(const Args&)> check;      // throw std::invalid_argument("one sentence") to refuse
  std::function<double(const Args&)> work;     // operations of one run
  std::function<double(const Args&)> memory;   // peak bytes of one run
};

namespace detail {

inline std::string quote(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += static_cast<char>(c);
    else if (c == '\n') o += "\\n";
    else if (c < 0x20) { char b[8]; std::snprintf(b, sizeof b, "\\u%04x", c); o += b; }
    else o += static_cast<char>(c);
  }
  return o + "\"";
}
inline std::string number(double x) {
  if (std::isinf(x)) return x > 0 ? "\"inf\"" : "\"-inf\"";
  if (std::isnan(x)) return "null";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}
inline std::string declaration(const MeasureDef& m) {
  std::string j = "{\"name\":" + quote(m.name) + ",\"summary\":" + quote(m.summary) + ",\"details\":" + quote(m.details) +
                  ",\"deterministic\":" + (m.deterministic ? "true" : "false") + ",\"params\":[";
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    const ParamDecl& p = m.params[i];
    j += std::string(i ? "," : "") + "{\"name\":" + quote(p.name) + ",\"type\":" + quote(p.type) +
         ",\"default\":" + quote(p.default_value) + ",\"doc\":" + quote(p.doc) + ",\"min\":" + number(p.min) +
         ",\"max\":" + number(p.max) + ",\"same_world\":" + (p.same_world ? "true" : "false") +
         ",\"expression\":" + (p.expression ? "true" : "false") + ",\"choices\":[";
    for (std::size_t k = 0; k < p.choices.size(); ++k) j += (k ? "," : "") + quote(p.choices[k]);
    j += "]}";
  }
  j += "],\"metrics\":[";
  for (std::size_t i = 0; i < m.metrics.size(); ++i)
    j += std::string(i ? "," : "") + "{\"name\":" + quote(m.metrics[i].name) + ",\"doc\":" + quote(m.metrics[i].doc) +
         ",\"series\":" + (m.metrics[i].series ? "true" : "false") + "}";
  return j + "]}";
}

// Exceptions never cross the C interface: each becomes host->fail with its message.
template <class F>
int guarded(const scalinglab_host* host, scalinglab_sink* sink, F&& f) {
  try {
    f();
    return 0;
  } catch (const std::exception& e) {
    host->fail(sink, e.what());
  } catch (...) {
    host->fail(sink, "an exception that is not a std::exception");
  }
  return 1;
}
inline int run_call(const void* c, const scalinglab_args* a, const scalinglab_host* h, scalinglab_sink* s) {
  const auto* m = static_cast<const MeasureDef*>(c);
  return guarded(h, s, [&] {
    Args args(a);
    Result r(h, s);
    m->run(args, r);
  });
}
inline int check_call(const void* c, const scalinglab_args* a, const scalinglab_host* h, scalinglab_sink* s) {
  const auto* m = static_cast<const MeasureDef*>(c);
  return guarded(h, s, [&] { m->check(Args(a)); });
}
inline double estimate(const std::function<double(const Args&)>& f, const scalinglab_args* a) {
  try {
    return f(Args(a));
  } catch (...) {
    return -1;
  }
}
inline double work_call(const void* c, const scalinglab_args* a) { return estimate(static_cast<const MeasureDef*>(c)->work, a); }
inline double memory_call(const void* c, const scalinglab_args* a) {
  return estimate(static_cast<const MeasureDef*>(c)->memory, a);
}

}  // namespace detail

// The measures a plugin registers.
class World {
 public:
  explicit World(std::string name) : name_(std::move(name)) {}
  void add(MeasureDef m) { defs_.push_back(std::make_unique<MeasureDef>(std::move(m))); }

  const scalinglab_plugin_table* table() {
    declarations_.clear();
    entries_.clear();
    for (const auto& d : defs_) declarations_.push_back(detail::declaration(*d));
    for (std::size_t i = 0; i < defs_.size(); ++i) {
      const MeasureDef* d = defs_[i].get();
      entries_.push_back({declarations_[i].c_str(), d, d->run ? &detail::run_call : nullptr,
                          d->check ? &detail::check_call : nullptr, d->work ? &detail::work_call : nullptr,
                          d->memory ? &detail::memory_call : nullptr});
    }
    table_ = {SCALINGLAB_PLUGIN_ABI, name_.c_str(), entries_.size(), entries_.data()};
    return &table_;
  }

 private:
  std::string name_;
  std::vector<std::unique_ptr<MeasureDef>> defs_;
  std::vector<std::string> declarations_;
  std::vector<scalinglab_measure_entry> entries_;
  scalinglab_plugin_table table_{};
};

}  // namespace scalinglab::plugin

// The plugin's entry point: SCALINGLAB_WORLD(w) { w.add(...); } defines the two exported functions
// the lab looks for (the interface version first, so that a plugin of another version is refused
// before anything else of it is read).
#define SCALINGLAB_WORLD(world)                                                                         \
  static void scalinglab_define_world(scalinglab::plugin::World& world);                                \
  extern "C" __attribute__((visibility("default"))) uint32_t scalinglab_plugin_abi() {                   \
    return SCALINGLAB_PLUGIN_ABI;                                                                       \
  }                                                                                                     \
  extern "C" __attribute__((visibility("default"))) const scalinglab_plugin_table* scalinglab_plugin() { \
    static scalinglab::plugin::World w(__FILE__);                                                        \
    static const scalinglab_plugin_table* t = [] {                                                      \
      scalinglab_define_world(w);                                                                        \
      return w.table();                                                                                 \
    }();                                                                                                \
    return t;                                                                                           \
  }                                                                                                     \
  static void scalinglab_define_world(scalinglab::plugin::World& world)
