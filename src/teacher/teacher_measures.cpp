// The measures of the `teacher` world, declared once: the error bounds and the compute-optimal
// width (Sections 4.3-4.4, Appendix A).
#include "scalinglab/teacher/teacher_measures.hpp"

#include <cmath>
#include <stdexcept>

#include "scalinglab/core/error.hpp"
#include "scalinglab/teacher/error_bound.hpp"

namespace scalinglab {

namespace {

using namespace teacher;

Record bound_run(const Params& prm, Stream&) {
  const double d = prm.real("d"), K = prm.real("K"), n = prm.real("n"), T = prm.real("T"), eps = prm.real("eps");
  Record r;
  try {
    r.set("corollary", corollary42(d, K, n, T));
    const MinimisedBound m = theorem41_minimised(d, K, n, T);
    r.set("theorem", m.value);
    r.set("eps_star", m.eps);
    const BoundTerms b = theorem41(d, K, n, T, eps > 0 ? eps : m.eps);
    r.set("estimation", b.estimation);
    r.set("misspecification", b.misspecification);
    r.set("theorem_at_eps", b.total());
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("teacher.bound: ") + e.what());
  }
  r.set("flops", d * n * T);
  return r;
}

Record optimum_run(const Params& prm, Stream&) {
  ComputeOptimalWidth o;
  try {
    o = compute_optimal_width(prm.real("d"), prm.real("K"), prm.real("C"));
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("teacher.optimum: ") + e.what());
  }
  Record r;
  r.set("n_star", o.n);
  r.set("T_star", o.T);
  r.set("parameters_star", prm.real("d") * o.n);
  r.set("bound", o.bound);
  r.set("n_upper", o.n_upper);
  r.set("n_lower", o.n_lower);
  return r;
}

std::vector<ParamSpec> model_params() {
  return {real_param("d", "10", "input dimension", 1, 1e9), real_param("K", "100", "Dirichlet-process scale", 2, 1e15)};
}

}  // namespace

void register_teacher_measures(Registry& reg) {
  {
    Measure m;
    m.name = "teacher.bound";
    m.summary = "upper bounds on the loss of the width-n constrained predictor after T samples (Thm 4.1, Cor 4.2)";
    m.details =
        "Jeon & Van Roy, Sec. 4.3. theorem: Theorem 4.1 minimised over eps in (0, 1] (the stationary point\n"
        "eps^2 = n ln(1 + n/K) / (6T), clipped; eps_star), corollary: Corollary 4.2's closed form\n"
        "d K ln(1 + n/K)(ln(e 36 T K) + (2/d) ln(2n)) / (2T) + 3K/n (n >= 3, K >= 2). estimation and\n"
        "misspecification are Theorem 4.1's two terms at eps (eps = 0: at eps_star). flops = d n T.";
    m.params = model_params();
    m.params.push_back(real_param("n", "1000", "width of the constrained predictor (n >= 3 for the corollary)", 1, 1e18));
    m.params.push_back(real_param("T", "1e6", "number of samples; formula allowed, e.g. C/(d*n)", 1, 1e30).allow_expression());
    m.params.push_back(real_param("eps", "0", "cover radius for estimation/misspecification (0: eps_star)", 0, 1));
    m.params.push_back(real_param("C", "0", "FLOP budget, for formulas of T (not used otherwise)", 0, 1e40));
    m.metrics = {{"corollary", "Corollary 4.2"},
                 {"theorem", "Theorem 4.1 minimised over eps in (0, 1]"},
                 {"eps_star", "the minimising eps"},
                 {"estimation", "Theorem 4.1's estimation term at eps"},
                 {"misspecification", "Theorem 4.1's misspecification term at eps"},
                 {"theorem_at_eps", "Theorem 4.1 at eps"},
                 {"flops", "d n T"}};
    m.fn = bound_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
  {
    Measure m;
    m.name = "teacher.optimum";
    m.summary = "compute-optimal width n* and data T* minimising Corollary 4.2 under d n T = C (Theorem 4.3)";
    m.details =
        "Jeon & Van Roy, Sec. 4.4 and Appendix A.2. n real in [3, C/d], T = C/(d n); a scan of log n, then Brent's method.\n"
        "n_upper = sqrt(3C)/d and n_lower (the root of C = d n^2 ln(2n) ln(36 K C)) bracket n* (Theorem 4.3's proof).";
    m.params = model_params();
    m.params.push_back(real_param("C", "1e12", "FLOP budget d n T", 1, 1e40));
    m.metrics = {{"n_star", "compute-optimal width"},
                 {"T_star", "compute-optimal number of samples C/(d n*)"},
                 {"parameters_star", "d n*"},
                 {"bound", "Corollary 4.2 at (n*, T*)"},
                 {"n_upper", "sqrt(3C)/d"},
                 {"n_lower", "root of C = d n^2 ln(2n) ln(36 K C)"}};
    m.fn = optimum_run;
    m.deterministic = true;
    reg.add(std::move(m));
  }
}

}  // namespace scalinglab
