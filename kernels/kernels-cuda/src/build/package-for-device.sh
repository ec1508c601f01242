#!/usr/bin/env bash
# Packs what a GPU machine without Java needs to run the CUDA contract suite and benchmarks:
# a jlinked Java 25 runtime, the benchmark jar (kernels + JCuda + fatbin), the test classes and
# the JUnit console launcher. Output: .device/ at the repository root (git-ignored), < 64 MiB.
#   kernels/kernels-cuda/src/build/package-for-device.sh
# Then, on the GPU machine, from the repository root: bash kernels/kernels-cuda/src/build/device-run.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../../../.." && pwd)
cd "$root"
# shellcheck source=/dev/null
. .tensafe/lib/common.sh
# shellcheck source=/dev/null
. .tensafe/lib/jdk.sh
tensafe_use_jdk
out=.device
rm -rf "$out"
mkdir -p "$out/lib"
exclude=$(git rev-parse --git-path info/exclude); mkdir -p "$(dirname "$exclude")"
grep -qx '/.device/' "$exclude" 2>/dev/null || echo '/.device/' >> "$exclude"
./mvnw -q install -DskipTests -Dspotless.check.skip=true -pl kernels/kernels-bench -am
./mvnw -q package -Pbench -DskipTests -Dspotless.check.skip=true -pl kernels/kernels-bench
./mvnw -q test-compile -Dspotless.check.skip=true -pl kernels/kernels-cuda
cp kernels/kernels-bench/target/benchmarks.jar "$out/lib/"
cp kernels/kernels-core/target/kernels-core-*-tests.jar "$out/lib/kernels-core-tests.jar"
"$JAVA_HOME/bin/jar" --create --file "$out/lib/kernels-cuda-tests.jar" -C kernels/kernels-cuda/target/test-classes .
./mvnw -q dependency:copy -Dartifact=org.junit.platform:junit-platform-console-standalone:6.1.1 \
  -DoutputDirectory="$root/$out/lib"
"$JAVA_HOME/bin/jlink" --add-modules java.base,java.logging,java.management,java.xml,jdk.unsupported,java.naming,jdk.incubator.vector \
  --strip-debug --no-header-files --no-man-pages --compress zip-9 --output "$out/jdk"
# The runtime travels compressed (the transfer limit is 64 MiB); device-run.sh unpacks it.
tar -C "$out" -cJf "$out/jdk.tar.xz" jdk
rm -rf "$out/jdk"
du -sh "$out" "$out"/* "$out"/lib/*
