// The LAPACK wrappers against closed forms and the defining identities.
#include <gtest/gtest.h>

#include <cmath>

#include "scalinglab/core/lapack.hpp"

namespace scalinglab {
namespace {

TEST(Lapack, SingularValuesOfASmallMatrixInClosedForm) {
  Eigen::MatrixXd a(2, 2);
  a << 3, 0, 4, 5;  // a^T a = [[25, 20], [20, 25]]: eigenvalues 45 and 5
  const auto s = singular_values(a);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0], std::sqrt(45.0), 1e-12);
  EXPECT_NEAR(s[1], std::sqrt(5.0), 1e-12);
}

TEST(Lapack, SingularValuesOfRectangularAndRankDeficientMatrices) {
  Eigen::MatrixXd a(4, 3);
  a << 1, 2, 3, 2, 4, 6, 1, 0, 1, 3, 4, 7;  // row 2 = 2 row 1, row 4 = row 1 + 2 row 3: rank 2
  const auto s = singular_values(a);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_GE(s[0], s[1]);
  EXPECT_GT(s[1], 1e-8);
  EXPECT_LT(s[2], 1e-12 * s[0]);
  // Their squares sum to the squared Frobenius norm.
  EXPECT_NEAR(s[0] * s[0] + s[1] * s[1] + s[2] * s[2], a.squaredNorm(), 1e-10);
  EXPECT_TRUE(singular_values(Eigen::MatrixXd(0, 3)).empty());
}

TEST(Lapack, SymmetricEigenInClosedFormAndAsDefined) {
  Eigen::MatrixXd a(2, 2);
  a << 2, 1, 1, 2;
  Eigen::VectorXd w;
  Eigen::MatrixXd v;
  ASSERT_TRUE(symmetric_eigen(a, w, v));
  EXPECT_NEAR(w[0], 1, 1e-14);  // ascending
  EXPECT_NEAR(w[1], 3, 1e-14);
  EXPECT_NEAR(std::fabs(v(0, 0)), std::sqrt(0.5), 1e-14);
  EXPECT_NEAR(v(0, 0), -v(1, 0), 1e-14);
  // A 5 x 5 symmetric matrix: A V = V diag(w), V orthonormal.
  Eigen::MatrixXd b(5, 5);
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 5; ++j) b(i, j) = std::sin(1.0 + i + j) + (i == j ? 3.0 : 0.0);
  ASSERT_TRUE(symmetric_eigen(b, w, v));
  EXPECT_LT((b * v - v * w.asDiagonal()).norm(), 1e-12);
  EXPECT_LT((v.transpose() * v - Eigen::MatrixXd::Identity(5, 5)).norm(), 1e-12);
  for (int i = 1; i < 5; ++i) EXPECT_LE(w[i - 1], w[i]);
  EXPECT_FALSE(symmetric_eigen(Eigen::MatrixXd(2, 3), w, v));  // not square
}

}  // namespace
}  // namespace scalinglab
