#!/usr/bin/env bash
# Compiles the CUDA kernels into resources of kernels-cuda, when nvcc is present.
#   build-fatbin.sh SOURCE_DIR OUTPUT_DIR
# Writes OUTPUT_DIR/io/tensafe/kernels/cuda/{tensafe_kernels.fatbin,tensafe_kernels.ptx,
# cuda-build.properties}. The fatbin carries SASS for sm_80 and sm_90 plus compute_90 PTX; the
# backend loads it through the driver (cuModuleLoadData), never through JCuda's PTX compiler,
# which rejects nvcc 13's PTX. Without nvcc the build still succeeds: the properties file then
# says so, and the backend reports itself unavailable with that reason.
set -euo pipefail
src=$1
out=$2/io/tensafe/kernels/cuda
mkdir -p "$out"
# NVCC=none builds as if nvcc were absent (the CLI test uses it); NVCC=/path picks one.
if [ "${NVCC:-}" = none ]; then
  nvcc=""
else
  nvcc=${NVCC:-$(command -v nvcc || true)}
  for candidate in /usr/local/cuda/bin/nvcc /usr/local/bin/nvcc; do
    [ -n "$nvcc" ] || { [ -x "$candidate" ] && nvcc=$candidate; } || true
  done
fi
if [ -z "$nvcc" ]; then
  echo "[kernels-cuda] nvcc not found: this build has no CUDA kernels and the CUDA backend is unavailable"
  rm -f "$out/tensafe_kernels.fatbin" "$out/tensafe_kernels.ptx"
  printf 'built=false\nreason=nvcc was not found when this jar was built\n' > "$out/cuda-build.properties"
  exit 0
fi
stamp="$out/cuda-build.properties"
if [ -f "$stamp" ] && grep -q '^built=true' "$stamp" && [ "$out/tensafe_kernels.fatbin" -nt "$src/tensafe_kernels.cu" ] \
   && [ "$out/tensafe_kernels.fatbin" -nt "$0" ]; then
  echo "[kernels-cuda] CUDA kernels up to date"
  exit 0
fi
version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p' | head -n 1)
echo "[kernels-cuda] compiling CUDA kernels with nvcc $version (sm_80, sm_90 SASS + compute_90 PTX)"
flags=(-O3 -std=c++17 -Xptxas -O3)
"$nvcc" "${flags[@]}" -fatbin \
  -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=sm_90 \
  -gencode arch=compute_90,code=compute_90 \
  -o "$out/tensafe_kernels.fatbin.tmp" "$src/tensafe_kernels.cu"
"$nvcc" "${flags[@]}" -ptx -arch=compute_90 -o "$out/tensafe_kernels.ptx.tmp" "$src/tensafe_kernels.cu"
mv "$out/tensafe_kernels.fatbin.tmp" "$out/tensafe_kernels.fatbin"
mv "$out/tensafe_kernels.ptx.tmp" "$out/tensafe_kernels.ptx"
printf 'built=true\nnvcc=%s\narchitectures=sm_80,sm_90,compute_90\n' "$version" > "$stamp"
