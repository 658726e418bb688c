#!/usr/bin/env bash
# Installs the Debian 12 packages scalinglab needs to build, test and plot.
# Idempotent: packages already present are skipped. Run as root (or with sudo available).
#   scripts/install-deps.sh           build + test dependencies
#   scripts/install-deps.sh --bench   also the reference implementations used by bench/ (PyTorch)
set -euo pipefail

packages=(
  build-essential cmake pkg-config
  libeigen3-dev libopenblas-dev libboost-math-dev liblbfgspp-dev
  libtomlplusplus-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libssl-dev                            # HMAC-SHA-256 signing checkpoints (OpenSSL's libcrypto)
  libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev python3-dev python3-numpy python3-pytest python3-pandas
  python3-venv python3-pip python3-setuptools   # pip install . (offline, into a venv)
  gnuplot-nox
  python3-matplotlib jupyter-nbconvert python3-nbclient python3-ipykernel   # scalinglab.plot, notebooks run in CI
  python3-tqdm                          # scalinglab.run's progress bar (text; a widget with ipywidgets >= 7)
  jupyter-notebook                      # a front end for the notebooks (`jupyter notebook`; tested to start)
  chromium                              # the report.html screenshot test (headless)
  slurmctld slurmd slurm-client munge   # the single-node Slurm test of `scalinglab slurm --submit`
  libopenmpi-dev openmpi-bin            # mpirun -np K scalinglab run (optional at build time)
)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3-torch python3-scipy)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
