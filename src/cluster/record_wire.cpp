#include "scalinglab/cluster/record_wire.hpp"

#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace scalinglab {

namespace {

using wire::put;
using wire::take;

void put_name(std::string& out, const std::string& name) {
  put<uint32_t>(out, static_cast<uint32_t>(name.size()));
  out += name;
}

std::string take_name(const std::string& in, std::size_t& at) {
  const auto n = take<uint32_t>(in, at);
  if (in.size() - at < n) throw std::runtime_error("record bytes: truncated name");
  std::string name = in.substr(at, n);
  at += n;
  return name;
}

}  // namespace

void append_record(const Record& record, std::string& out) {
  put<uint32_t>(out, static_cast<uint32_t>(record.scalars.size()));
  for (const auto& [name, value] : record.scalars) {
    put_name(out, name);
    put<double>(out, value);
  }
  put<uint32_t>(out, static_cast<uint32_t>(record.series.size()));
  for (const auto& [name, values] : record.series) {
    put_name(out, name);
    put<uint64_t>(out, values.size());
    if (!values.empty()) out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  }
}

Record read_record(const std::string& in, std::size_t& at) {
  Record r;
  const auto scalars = take<uint32_t>(in, at);
  for (uint32_t k = 0; k < scalars; ++k) {
    std::string name = take_name(in, at);
    r.scalars.emplace_back(std::move(name), take<double>(in, at));
  }
  const auto series = take<uint32_t>(in, at);
  for (uint32_t k = 0; k < series; ++k) {
    std::string name = take_name(in, at);
    const auto n = take<uint64_t>(in, at);
    if ((in.size() - at) / sizeof(double) < n) throw std::runtime_error("record bytes: truncated series");
    std::vector<double> values(n);
    if (n > 0) std::memcpy(values.data(), in.data() + at, n * sizeof(double));  // data() may be null when empty
    at += n * sizeof(double);
    r.series.emplace_back(std::move(name), std::move(values));
  }
  return r;
}

}  // namespace scalinglab
