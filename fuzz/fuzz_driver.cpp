// A deterministic stand-in for libFuzzer: mutates a seed corpus (the repository's sweep files,
// formulas, CSV tables, results lines) with a fixed-seed generator and feeds every input to
// LLVMFuzzerTestOneInput, for a number of inputs or a time budget. Same seed, same inputs: a
// failure seen in CI is reproduced by running the same command.
//   fuzz_driver [--runs N] [--seconds S] [--seed K] [--save-failing DIR] CORPUS_FILE_OR_DIR...
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerInitialize(int*, char***);
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace fs = std::filesystem;

namespace {

// Fragments that reach deep into the grammars.
const char* const kTokens[] = {
    "\n", "[", "]", "[[", "]]", "\"", "'", "=", "{", "}", ",", "(", ")", "^", "-", "+", "*", "/", "<=", ">=",
    "inf", "nan", "-inf", "1e308", "1e-320", "0", "-1", "9223372036854775807", "18446744073709551616",
    "logspace(", "linspace(", "d/8", "[grid]\n", "[params]\n", "[plot]\n", "[[check]]\n", "[[part]]\n",
    "[profile.quick]\n", "measure = \"memory.error\"\n", "measure = \"skills.peel\"\n", "runs = ", "seed = ",
    "where = { ", "slope = { x = \"d\", y = \"error\", expect = -1, tol = 0.1 }\n", "reference = ", "\\u0000",
    "\"\"\"", "log(", "zeta(", "gamma(", "max(", "x", "y", "`", "\\", "#", "\t", "\r\n", "\xef\xbb\xbf",
    "{\"point\":0,\"key\":\"k\",\"run\":0,\"params\":{},\"metrics\":{\"e\":", "null", "true", "\"inf\"",
    "NaN", "Infinity", "-Infinity", "\"columns\": [", "\"data\": [", ";", "2,71",
};

std::string mutate(std::string s, const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int k = 0; k < edits; ++k) {
    const std::size_t at = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 7) {
      case 0:  // flip a bit
        if (!s.empty()) s[rng() % s.size()] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1:  // a random byte
        s.insert(at, 1, static_cast<char>(rng() % 256));
        break;
      case 2:  // delete a run
        if (!s.empty()) s.erase(rng() % s.size(), 1 + rng() % 16);
        break;
      case 3:  // a token
        s.insert(at, kTokens[rng() % (sizeof kTokens / sizeof *kTokens)]);
        break;
      case 4: {  // splice from another entry
        const std::string& other = corpus[rng() % corpus.size()];
        if (other.size() > 1) {
          const std::size_t from = 1 + rng() % (other.size() - 1), len = rng() % 64;
          s.insert(at, other.substr(from, len));
        }
        break;
      }
      case 5:  // duplicate a run (nesting, long chains)
        if (!s.empty()) {
          const std::size_t from = rng() % s.size(), len = 1 + rng() % 8;
          const std::string piece = s.substr(from, len);
          std::string rep;
          for (std::size_t n = rng() % 64; n > 0; --n) rep += piece;
          s.insert(at, rep);
        }
        break;
      default:  // change the parser
        if (!s.empty()) s[0] = static_cast<char>(rng() % 8);
    }
  }
  if (s.size() > (1u << 16)) s.resize(1u << 16);
  return s;
}

void add_file(const fs::path& p, std::vector<std::string>& corpus) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const std::string ext = p.extension().string();
  // The first byte selects the parser (see fuzz_parsers.cpp): 0 and 4 sweep, 1 formula, 2 CSV,
  // 3 results line, 5 results file, 6 ranges and bounds, 7 saved fit or fit request.
  if (ext == ".toml") {
    corpus.push_back(std::string(1, '\0') + text);
    corpus.push_back(std::string(1, '\4') + text);
  } else if (ext == ".csv") {
    corpus.push_back(std::string(1, '\2') + text.substr(0, 4096));
  } else if (ext == ".jsonl") {
    corpus.push_back(std::string(1, '\5') + text.substr(0, 4096));
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line) && corpus.size() < 100000;) corpus.push_back(std::string(1, '\3') + line);
  } else if (ext == ".json") {
    corpus.push_back(std::string(1, '\7') + text.substr(0, 16384));
  } else if (ext == ".ranges") {  // one --grid, predict or --bounds option per line
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) corpus.push_back(std::string(1, '\6') + line);
  } else {  // one formula per line
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) corpus.push_back(std::string(1, '\1') + line);
  }
}

}  // namespace

int main(int argc, char** argv) {
  long long runs = -1;
  double seconds = -1;
  uint64_t seed = 1;
  std::string save_dir;
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc) runs = std::atoll(argv[++i]);
    else if (a == "--seconds" && i + 1 < argc) seconds = std::atof(argv[++i]);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--save-failing" && i + 1 < argc) save_dir = argv[++i];
    else if (fs::is_directory(a)) {
      std::vector<fs::path> files;
      for (const auto& e : fs::recursive_directory_iterator(a))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());  // deterministic order
      for (const auto& f : files) add_file(f, corpus);
    } else if (fs::is_regular_file(a)) {
      add_file(a, corpus);
    } else {
      std::fprintf(stderr, "fuzz_driver: unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  if (runs < 0 && seconds < 0) runs = 100000;
  for (const char* f : {"d/8", "3.5*d^-1", "T^(-(1-1/alpha))", "max(x, y) <= 2", "zeta(2)*log(x)", "-x^2", "(((1)))"})
    corpus.push_back(std::string(1, '\1') + f);
  corpus.push_back(std::string(1, '\2') + "N,D,loss\n1e6,2e9,3.1\n2e6,4e9,2.9\n");
  for (const char* r : {"alpha=0:0.5:2", "log(A)=0:5:25", "N=1:1e-17:1.000000000000001", "E=0:,alpha=0:2"})
    corpus.push_back(std::string(1, '\6') + r);
  corpus.push_back(std::string(1, '\7') + "{\"law\": \"E + A/N^alpha\", \"bootstrap\": 3, \"level\": 0.9, \"seed\": 2, "
                   "\"at\": [1e21], \"grid\": [\"alpha=0:0.5:2\"], \"delta\": \"inf\"}");
  LLVMFuzzerInitialize(&argc, &argv);
  std::mt19937_64 rng(seed);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  long long done = 0;
  for (const auto& c : corpus) {  // the seeds themselves first
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(c.data()), c.size());
    ++done;
  }
  for (; (runs < 0 || done < runs) && (seconds < 0 || elapsed() < seconds); ++done) {
    const std::string input = mutate(corpus[rng() % corpus.size()], corpus, rng);
    if (!save_dir.empty()) {  // the input in flight, for a crash that kills the process
      std::ofstream(fs::path(save_dir) / "last-input", std::ios::binary) << input;
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
  }
  std::printf("fuzz_driver: %lld inputs in %.1f s (seed %llu, corpus %zu), no failure\n", done, elapsed(),
              static_cast<unsigned long long>(seed), corpus.size());
  return 0;
}
