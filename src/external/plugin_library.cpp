// A C++ world plugin: dlopen, the interface version checked before anything else is read, then each
// declaration read and each measure registered with functions that call the plugin through its C
// interface. Exceptions never cross it (the header turns them into `fail`); what a plugin reports
// as a failure fails its task alone.
#include "scalinglab/external/plugin_library.hpp"

#include <dlfcn.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/core/file_io.hpp"
#include "scalinglab/core/json_input.hpp"
#include "scalinglab/core/keyed_mac.hpp"
#include "scalinglab/external/world_declaration.hpp"
#include "scalinglab/world_plugin.hpp"

namespace fs = std::filesystem;

namespace scalinglab::external {

namespace {

// The plugin's results of one call.
struct Sink {
  Record record;
  std::string error;
};

}  // namespace
}  // namespace scalinglab::external

struct scalinglab_sink {
  scalinglab::external::Sink* sink;
};

namespace scalinglab::external {

namespace {

void set_scalar(scalinglab_sink* s, const char* name, double value) { s->sink->record.set(name ? name : "", value); }
void set_series(scalinglab_sink* s, const char* name, const double* values, size_t count) {
  s->sink->record.set_series(name ? name : "", values ? std::vector<double>(values, values + count) : std::vector<double>{});
}
void fail(scalinglab_sink* s, const char* message) {
  s->sink->error = message && *message ? message : "failed without a message";
}
const scalinglab_host kHost{&set_scalar, &set_series, &fail};

// A task's parameters laid out for the C interface (runs and seed are the lab's).
struct CallArgs {
  std::vector<const char*> names, texts;
  std::vector<double> numbers;
  scalinglab_args args{};
  CallArgs(const Params& p, uint64_t seed) {
    for (const auto& e : p.entries()) {
      if (e.spec->name == "runs" || e.spec->name == "seed") continue;
      names.push_back(e.spec->name.c_str());
      texts.push_back(e.text.c_str());
      numbers.push_back(e.number);
    }
    args = {names.size(), names.data(), texts.data(), numbers.data(), seed};
  }
};

struct Loaded {
  std::vector<std::string> names;
};
std::mutex g_mutex;
std::map<std::string, Loaded> g_loaded;  // canonical path -> its measures
std::vector<std::string> g_order;

}  // namespace

std::vector<std::string> load_plugin(const std::string& path) {
  std::lock_guard<std::mutex> lock(g_mutex);
  std::error_code ec;
  if (path.empty()) throw InputError("--plugin: name a shared library (.so)");
  const fs::path p = fs::absolute(path, ec);
  if (ec || !fs::exists(p, ec)) throw InputError("plugin " + path + ": no such file");
  if (!fs::is_regular_file(p, ec)) throw InputError("plugin " + path + ": not a regular file");
  const std::string key = fs::canonical(p, ec).string();
  if (const auto it = g_loaded.find(key); it != g_loaded.end()) return it->second.names;

  // The task cache's key: records of a rebuilt library are never reused.
  const std::string code = "plugin " + digest_hex(read_file(key, std::uint64_t{1} << 30, "plugin library"));
  void* lib = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    throw InputError("plugin " + path + ": cannot be loaded (" + std::string(why ? why : "unknown reason") + ")");
  }
  // The library stays loaded for the life of the process: its functions are in the registry.
  using AbiFn = uint32_t (*)();
  using TableFn = const scalinglab_plugin_table* (*)();
  const auto abi = reinterpret_cast<AbiFn>(::dlsym(lib, "scalinglab_plugin_abi"));
  const auto table_fn = reinterpret_cast<TableFn>(::dlsym(lib, "scalinglab_plugin"));
  if (!abi || !table_fn)
    throw InputError("plugin " + path + ": not a scalinglab world (no scalinglab_plugin_abi/scalinglab_plugin entry point; "
                     "define the world with SCALINGLAB_WORLD from scalinglab/world_plugin.hpp)");
  if (const uint32_t v = abi(); v != SCALINGLAB_PLUGIN_ABI)
    throw InputError("plugin " + path + ": built against plugin interface version " + std::to_string(v) +
                     ", this scalinglab reads version " + std::to_string(SCALINGLAB_PLUGIN_ABI) +
                     ": rebuild it against this version's include/scalinglab/world_plugin.hpp");
  const scalinglab_plugin_table* table = table_fn();
  if (!table || table->abi != SCALINGLAB_PLUGIN_ABI || (table->count > 0 && !table->measures))
    throw InputError("plugin " + path + ": its table of measures is malformed");
  if (table->count == 0) throw InputError("plugin " + path + ": it registers no measure");
  if (table->count > 1000) throw InputError("plugin " + path + ": more than 1000 measures");

  // Every declaration read and checked before any is registered: a bad one leaves the registry as it was.
  std::vector<Measure> measures;
  for (std::size_t i = 0; i < table->count; ++i) {
    const scalinglab_measure_entry* e = &table->measures[i];
    const std::string source = "plugin " + path;
    if (!e->declaration_json) throw InputError(source + ": measure " + std::to_string(i) + " has no declaration");
    Measure m = measure_from_declaration(parse_json(e->declaration_json, source), source);
    if (!e->run) throw InputError(source + ": measure " + m.name + " has no run function");
    const std::string name = m.name;
    m.fn = [e, name, metrics = m.metrics](const Params& prm, Stream& stream) {
      CallArgs a(prm, stream.key());
      Sink sink;
      scalinglab_sink s{&sink};
      const int status = e->run(e->context, &a.args, &kHost, &s);
      if (status != 0 || !sink.error.empty())
        throw std::runtime_error(name + " at " + prm.canonical() + ": " + (sink.error.empty() ? "failed" : sink.error));
      Measure shape;
      shape.name = name;
      shape.metrics = metrics;
      check_record(shape, sink.record);
      return std::move(sink.record);
    };
    if (e->check)
      m.check = [e, name](const Params& prm) {
        CallArgs a(prm, 0);
        Sink sink;
        scalinglab_sink s{&sink};
        if (e->check(e->context, &a.args, &kHost, &s) != 0 || !sink.error.empty())
          throw InputError(name + " at " + prm.canonical() + ": " + (sink.error.empty() ? "refused" : sink.error));
      };
    auto estimate = [e](scalinglab_estimate_fn f) -> std::function<double(const Params&)> {
      if (!f) return nullptr;
      return [e, f](const Params& prm) {
        CallArgs a(prm, 0);
        const double x = f(e->context, &a.args);
        return std::isnan(x) || x < 0 ? INFINITY : x;  // an estimate that cannot be made counts as too large
      };
    };
    if (e->work) m.work = estimate(e->work);
    if (e->memory) m.memory = estimate(e->memory);
    m.code = code;
    check_declaration(m);
    measures.push_back(std::move(m));
  }
  Loaded loaded{register_loaded(std::move(measures), "plugin " + path)};
  g_order.push_back(key);
  return g_loaded.emplace(key, std::move(loaded)).first->second.names;
}

std::vector<std::string> loaded_plugins() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_order;
}

}  // namespace scalinglab::external
