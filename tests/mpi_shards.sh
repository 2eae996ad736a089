#!/bin/sh
# mpi_shards.sh BIN_DIR TMP_DIR - examples/mpi_shards.c under a real mpirun:
# 2 ranks, 4 ranks on this machine's cores (--oversubscribe), and 4 ranks as
# two "nodes" of 2 (see below). Each run checks, on rank 0, that every rank's
# share of two epochs adds up to the epoch exactly once plus the padding, with
# equal batch counts, and what device=cuda:local picks on each rank.
# Skips (77) only when mpirun is absent; mpirun without the built example is
# a failure (CMake found no MPI: scripts/deps.sh installs libopenmpi-dev).
set -eu
bin=$1
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi_shards: skipped: no mpirun here (apt-get install openmpi-bin libopenmpi-dev)"
  exit 77
fi
if [ ! -x "$bin/mpi_shards" ]; then
  echo "mpi_shards: mpirun is here but $bin/mpi_shards was not built: CMake found no MPI" \
       "(libopenmpi-dev missing when configuring?)"
  exit 1
fi
mkdir -p "$2"
d=$(mktemp -d "$2/mpi_shards.XXXXXX")
trap 'rm -rf "$d"' EXIT
# 45 samples: 2 ranks pad 1, 4 ranks pad 3.
"$bin/feed-mkdata" --out "$d/data" --count 45 --seed 3 --classes 3 --quiet

set --
[ "$(id -u)" = 0 ] && set -- --allow-run-as-root # Open MPI refuses root without it
# In containers: no shared-memory single-copy (CMA needs ptrace rights), no
# ssh agent probe for a one-host job.
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_plm_rsh_agent=false
run() { # name, mpirun arguments...
  name=$1
  shift
  if ! mpirun "$@" >"$d/$name.log" 2>&1; then
    echo "mpi_shards: $name failed:"
    cat "$d/$name.log"
    exit 1
  fi
  cat "$d/$name.log"
  grep -q "^mpi_shards: ok" "$d/$name.log" || { echo "mpi_shards: $name: no ok line"; exit 1; }
}
run np2 "$@" -np 2 "$bin/mpi_shards" "$d/data"
run np4 "$@" -np 4 --oversubscribe "$bin/mpi_shards" "$d/data"
# Two nodes without a cluster: ranks 0-1 are node0 and 2-3 node1, with the
# local ranks (0, 1 on each) and node rank Open MPI sets on a 2-node launch
# (one mpirun, so MPI_Gather still spans both "nodes"; libfeed reads only
# these variables).
run nodes2 "$@" -np 4 --oversubscribe sh -c 'r=$OMPI_COMM_WORLD_RANK
  export MPI_SHARDS_NODE=node$((r / 2)) OMPI_COMM_WORLD_LOCAL_RANK=$((r % 2)) \
         OMPI_COMM_WORLD_LOCAL_SIZE=2 OMPI_COMM_WORLD_NODE_RANK=$((r / 2))
  exec "$0" "$@"' "$bin/mpi_shards" "$d/data"
for want in "node0 +local rank 0" "node0 +local rank 1" "node1 +local rank 0" "node1 +local rank 1"; do
  grep -Eq "node $want " "$d/nodes2.log" || { echo "mpi_shards: nodes2: no '$want'"; exit 1; }
done
echo "mpi_shards: ok"
