#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, after package-for-device.sh filled .device/:
# the CUDA contract suite (JUnit console), then the benchmarks of the CUDA issue. Logs and JSON go
# to $OUT (or ./device-out). Exit status: the contract suite's.
set -uo pipefail
out=${OUT:-device-out}
mkdir -p "$out"
runtime=${TMPDIR:-/tmp}/tensafe-jdk
[ -x "$runtime/jdk/bin/java" ] || { mkdir -p "$runtime" && tar -C "$runtime" -xJf .device/jdk.tar.xz; }
java=$runtime/jdk/bin/java
lib=.device/lib
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/device.txt"
"$java" -version 2>&1 | head -n 1 | tee -a "$out/device.txt"
"$java" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -jar "$lib"/junit-platform-console-standalone-*.jar execute \
  --class-path "$lib/kernels-cuda-tests.jar:$lib/kernels-core-tests.jar:$lib/benchmarks.jar" \
  --select-class io.tensafe.kernels.cuda.CudaBackendContractTest \
  --select-class io.tensafe.kernels.cuda.CudaProbeTest \
  --select-class io.tensafe.kernels.cuda.CudaCounterSamplerTest \
  --details=tree --disable-banner --disable-ansi-colors 2>&1 | tee "$out/contract.txt"
status=${PIPESTATUS[0]}
bench() { "$java" --enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector -cp "$lib/benchmarks.jar" io.tensafe.kernels.bench.BenchCommand "$@"; }
if [ "${DEVICE_RUN_BENCH:-1}" = 1 ]; then
  bench ntt --backend cuda --log-n 14 --batch 1,64,1024 --json 2>&1 | tee "$out/bench-ntt.jsonl"
  bench ntt --backend cuda --log-n 16 --batch 1,64,256 --json 2>&1 | tee -a "$out/bench-ntt.jsonl"
  bench ntt --backend cpu --log-n 14 --batch 64 --seconds 1 --json 2>&1 | tee -a "$out/bench-ntt.jsonl"
  bench he-lora --backend cuda --dim 2048 --rank 32 --batch 1,64,512 --seconds 3 --json 2>&1 | tee "$out/bench-he-lora.jsonl"
  bench he-lora --backend cuda --dim 2048 --rank 32 --batch 64,64 --seconds 3 --json 2>&1 | tee -a "$out/bench-he-lora.jsonl"
  bench he-lora --backend cuda --dim 2048 --rank 32 --batch 64 --threads 4 --seconds 3 --json 2>&1 | tee -a "$out/bench-he-lora.jsonl"
  bench he-lora --backend cuda --dim 2048 --rank 32 --batch 64 --sites 4 --seconds 3 --json 2>&1 | tee -a "$out/bench-he-lora.jsonl"
  bench he-lora --backend cuda --dim 2048 --rank 32 --batch 16 --sites 8 --seconds 3 --json 2>&1 | tee -a "$out/bench-he-lora.jsonl"
  bench he-lora --backend cpu --dim 2048 --rank 32 --batch 64 --seconds 3 --json 2>&1 | tee -a "$out/bench-he-lora.jsonl"
fi
exit "$status"
