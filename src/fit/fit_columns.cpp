// Column selection for the fitters.
#include "scalinglab/fit/fit_columns.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "scalinglab/core/error.hpp"

namespace scalinglab::fit {

namespace {

void require_positive(const std::vector<double>& v, const std::string& name, const std::vector<int>& lines,
                      const std::string& source) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!(v[i] > 0) || !std::isfinite(v[i]))
      throw InputError(source + ":" + std::to_string(lines[i]) + ": " + name + " = " + std::to_string(v[i]) +
                       " (scaling laws need positive, finite values)");
}

}  // namespace

FitColumns choose_columns(const DataTable& full, const ColumnChoice& c, bool need_x) {
  FitColumns out;
  out.rows_read = full.rows();
  const DataTable t = c.where.empty() ? full : full.where(c.where);
  out.rows_filtered = t.rows();
  if (t.rows() == 0) throw InputError(full.source + ": no rows" + (c.where.empty() ? "" : " match the filters"));
  if (c.loss.empty()) throw InputError("--loss: the loss column is needed");
  std::vector<double> loss = t.numbers(c.loss);
  std::vector<double> x, N, D, C;
  if (need_x) {
    if (c.x.empty()) throw InputError("--x: this law has one input; name its column");
    x = t.numbers(c.x);
  } else {
    const int given = !c.N.empty() + !c.D.empty() + !c.C.empty();
    if (given < 2) throw InputError("name two of the columns --N, --D, --C (the third is derived from C = 6 N D)");
    if (!c.N.empty()) N = t.numbers(c.N);
    if (!c.D.empty()) D = t.numbers(c.D);
    if (!c.C.empty()) C = t.numbers(c.C);
    if (!c.N.empty()) require_positive(N, "N ('" + c.N + "')", t.lines, t.source);
    if (!c.D.empty()) require_positive(D, "D ('" + c.D + "')", t.lines, t.source);
    if (!c.C.empty()) require_positive(C, "C ('" + c.C + "')", t.lines, t.source);
    const std::size_t n = loss.size();
    if (D.empty()) {
      D.resize(n);
      for (std::size_t i = 0; i < n; ++i) D[i] = C[i] / (6 * N[i]);
      out.derived = "D = C / (6 N)";
    } else if (N.empty()) {
      N.resize(n);
      for (std::size_t i = 0; i < n; ++i) N[i] = C[i] / (6 * D[i]);
      out.derived = "N = C / (6 D)";
    } else if (C.empty()) {
      C.resize(n);
      for (std::size_t i = 0; i < n; ++i) C[i] = 6 * N[i] * D[i];
      out.derived = "C = 6 N D";
    }
  }
  require_positive(loss, "loss ('" + c.loss + "')", t.lines, t.source);
  if (need_x) require_positive(x, "x ('" + c.x + "')", t.lines, t.source);

  // Keep all rows but the drop_top highest losses (ties broken by file order), in file order.
  if (c.drop_top < 0) throw InputError("--drop-top must be >= 0");
  std::vector<std::size_t> order(loss.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return loss[a] > loss[b]; });
  const std::size_t drop = std::min<std::size_t>(static_cast<std::size_t>(c.drop_top), loss.size());
  std::vector<bool> keep(loss.size(), true);
  for (std::size_t k = 0; k < drop; ++k) keep[order[k]] = false;
  out.dropped = drop;
  if (drop == loss.size())
    throw InputError("--drop-top " + std::to_string(c.drop_top) + " leaves none of the " + std::to_string(loss.size()) +
                     " rows to fit");
  for (std::size_t i = 0; i < loss.size(); ++i) {
    if (!keep[i]) continue;
    out.loss.push_back(loss[i]);
    out.lines.push_back(t.lines[i]);
    if (need_x) {
      out.x.push_back(x[i]);
    } else {
      out.N.push_back(N[i]);
      out.D.push_back(D[i]);
      out.C.push_back(C[i]);
    }
  }
  return out;
}

}  // namespace scalinglab::fit
