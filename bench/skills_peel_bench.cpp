// Peeling throughput on large concept-text graphs (the paper's binomial ensemble and the regular
// (3, 6) LDPC ensemble), one thread: graph generation and peeling timed separately, medians of the
// repetitions, rate = graph edges / peeling time. Memory: bytes held by the graph per edge.
// Usage: bench_skills_peel [reps=5] [edges=1e7]. Prints one JSON object.
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench_timing.hpp"
#include "scalinglab/skills/peeling.hpp"

using namespace scalinglab;
using namespace scalinglab::skills;
using namespace scalinglab::bench;

namespace {

struct Case {
  std::string name;
  std::function<BipartiteGraph(Stream&)> make;
};

std::size_t graph_bytes(const BipartiteGraph& g) {
  return (g.check_start.size() + g.var_start.size()) * sizeof(uint64_t) +
         (g.check_vars.size() + g.var_checks.size()) * sizeof(uint32_t);
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const double edges = argc > 2 ? std::atof(argv[2]) : 1e7;
  // Binomial: d_t = 6, T = 5 R (the compute-optimal ratio at Chinchilla's point): R T p = 6 T edges.
  const auto T = static_cast<uint32_t>(edges / 6), R = T / 5;
  // Regular (3, 6) below its threshold: every variable erased with probability 0.42.
  const auto n = 2 * static_cast<uint32_t>(edges / 6);  // even: n * 3 is a multiple of 6
  const std::vector<Case> cases = {
      {"binomial d_t=6 T=5R", [&](Stream& s) { return binomial_graph(R, T, 6.0 / R, s); }},
      {"regular (3,6)", [&](Stream& s) { return regular_graph(n, 3, 6, s); }},
  };
  std::printf("{\"threads\": 1, \"reps\": %d, \"cases\": [", reps);
  for (std::size_t k = 0; k < cases.size(); ++k) {
    std::vector<double> t_gen, t_peel;
    uint64_t m = 0, recovered = 0, erased = 0;
    std::size_t bytes = 0;
    for (int r = 0; r < reps; ++r) {
      Stream s(100 + static_cast<uint64_t>(r));
      auto t0 = Clock::now();
      const BipartiteGraph g = cases[k].make(s);
      t_gen.push_back(seconds_since(t0));
      std::vector<uint8_t> mask;
      if (k == 1) {  // erasure channel at 0.42 < 0.4294
        mask.resize(g.variables);
        for (auto& b : mask) b = s.uniform() < 0.42;
      }
      t0 = Clock::now();
      const PeelResult res = peel(g, mask.empty() ? nullptr : &mask);
      t_peel.push_back(seconds_since(t0));
      m = g.edges(), recovered = res.recovered, erased = res.erased, bytes = graph_bytes(g);
    }
    const double gen = median(t_gen), pl = median(t_peel);
    std::printf("%s\n  {\"case\": \"%s\", \"edges\": %llu, \"erased\": %llu, \"recovered\": %llu, \"generate_s\": %.4f, "
                "\"peel_s\": %.4f, \"peel_edges_per_s\": %.4g, \"generate_edges_per_s\": %.4g, \"bytes_per_edge\": %.2f}",
                k ? "," : "", cases[k].name.c_str(), static_cast<unsigned long long>(m),
                static_cast<unsigned long long>(erased), static_cast<unsigned long long>(recovered), gen, pl,
                double(m) / pl, double(m) / gen, double(bytes) / double(m));
  }
  std::printf("\n]}\n");
  return 0;
}
