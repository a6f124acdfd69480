# Sourced by the benches that train gpt-pipe-8l (8 layers, hidden 128, 4
# heads, vocabulary 1024) on random tokens: sets root, build and a work
# folder removed on exit, and writes $work/gpt-pipe-8l.mlir and
# $work/random.tokens (100,000 tokens, seed 0). `mpi` holds the mpirun
# command line ranks run under as processes (empty without Open MPI).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${MT_BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
python3 "$root/examples/gen_gpt.py" "$work" gpt-pipe-8l > /dev/null
python3 -c "
import random
random.seed(0)
print(' '.join(str(random.randrange(1024)) for _ in range(100000)))" > "$work/random.tokens"
mpi=""
if command -v mpirun > /dev/null; then
  # Containers run as root; Open MPI refuses that unless told.
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpi="mpirun --oversubscribe -x OPENBLAS_NUM_THREADS=1"
fi
