#!/usr/bin/env bash
# Hand-written CUDA ceilings for egg's kernels (bench/ceilings/*.cu), built
# with nvcc and run on this GPU: what the hardware allows at the sizes the
# bench problems use. Results go in docs/benchmarks.md.
#   bench/ceilings.sh [name...]      (default: every bench/ceilings/*.cu)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
arch=${EGG_CEILINGS_ARCH:-sm_90}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
names=("$@")
[[ ${#names[@]} -gt 0 ]] || names=($(cd "$here/ceilings" && ls *.cu | sed 's/\.cu$//'))
echo "# bench/ceilings.sh on $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(date -u +%F)"
for n in "${names[@]}"; do
  echo "## $n"
  # A probe names the libraries it links on a "// nvcc-flags:" line.
  flags=$(sed -n 's|^// nvcc-flags: ||p' "$here/ceilings/$n.cu")
  nvcc -O3 -arch="$arch" "$here/ceilings/$n.cu" -o "$work/$n" $flags
  "$work/$n"
done
