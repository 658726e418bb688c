// Reading the launcher's environment: several ranks only when a size above 1 is set; a malformed
// value counts as absent; threads per rank share the cores among a node's ranks.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "scalinglab/cluster/job_environment.hpp"
#include "scalinglab/core/parallel.hpp"

using namespace scalinglab;

namespace {
struct Env {  // sets variables for one test and restores their absence
  std::vector<std::string> names;
  void set(const std::string& name, const std::string& value) {
    ::setenv(name.c_str(), value.c_str(), 1);
    names.push_back(name);
  }
  ~Env() {
    for (const auto& n : names) ::unsetenv(n.c_str());
  }
};
const char* kAll[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "OMPI_COMM_WORLD_LOCAL_SIZE",
                      "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"};
}  // namespace

TEST(JobEnvironment, SeveralRanksOnlyWhenTheLauncherSaysSo) {
  for (const char* n : kAll) ::unsetenv(n);
  EXPECT_FALSE(launched_as_mpi_job());
  EXPECT_EQ(ranks_on_this_node(), 1);
  {
    Env e;
    e.set("OMPI_COMM_WORLD_SIZE", "1");  // mpirun -np 1: a plain run
    EXPECT_FALSE(launched_as_mpi_job());
  }
  {
    Env e;
    e.set("PMI_SIZE", "4x");
    EXPECT_FALSE(launched_as_mpi_job());
  }
  {
    Env e;
    e.set("OMPI_COMM_WORLD_SIZE", "4");
    e.set("OMPI_COMM_WORLD_LOCAL_SIZE", "2");
    EXPECT_TRUE(launched_as_mpi_job());
    EXPECT_EQ(ranks_on_this_node(), 2);
    EXPECT_EQ(default_threads_per_rank(), std::max(1, resolve_threads(0) / 2));
  }
  {
    Env e;
    e.set("PMIX_SIZE", "3");
    e.set("SLURM_NTASKS_PER_NODE", "100000");
    EXPECT_TRUE(launched_as_mpi_job());
    EXPECT_EQ(default_threads_per_rank(), 1);
  }
}
