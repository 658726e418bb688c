#include "scalinglab/core/lapack.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

extern "C" {
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info);
void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
            const int* lwork, int* info);
}

namespace scalinglab {

std::vector<double> singular_values(Eigen::MatrixXd a) {
  const int m = static_cast<int>(a.rows()), n = static_cast<int>(a.cols()), lda = std::max(1, m), one = 1;
  std::vector<double> s(static_cast<std::size_t>(std::min(m, n)));
  if (s.empty()) return s;
  std::vector<int> iwork(8 * s.size());
  double query = 0, unused = 0;
  int lwork = -1, info = 0;  // a first call asks for the workspace size
  dgesdd_("N", &m, &n, a.data(), &lda, s.data(), &unused, &one, &unused, &one, &query, &lwork, iwork.data(), &info);
  lwork = std::max(1, static_cast<int>(query));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  dgesdd_("N", &m, &n, a.data(), &lda, s.data(), &unused, &one, &unused, &one, work.data(), &lwork, iwork.data(), &info);
  if (info != 0) throw std::runtime_error("LAPACK dgesdd failed (info " + std::to_string(info) + ")");
  return s;
}

bool symmetric_eigen(const Eigen::MatrixXd& a, Eigen::VectorXd& values, Eigen::MatrixXd& vectors) {
  const int n = static_cast<int>(a.rows()), lda = std::max(1, n);
  if (a.rows() != a.cols()) return false;
  vectors = a;  // overwritten by the eigenvectors
  values.resize(n);
  if (n == 0) return true;
  double query = 0;
  int lwork = -1, info = 0;
  dsyev_("V", "L", &n, vectors.data(), &lda, values.data(), &query, &lwork, &info);
  lwork = std::max(1, static_cast<int>(query));
  std::vector<double> work(static_cast<std::size_t>(lwork));
  dsyev_("V", "L", &n, vectors.data(), &lda, values.data(), work.data(), &lwork, &info);
  return info == 0;
}

}  // namespace scalinglab
