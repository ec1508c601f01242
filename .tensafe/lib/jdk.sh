# Finds a JDK >= 25 and exports JAVA_HOME and PATH for it, without the user exporting anything.
# Order: $JAVA_HOME, the JDK of `java` on PATH, then the JDKs inside TENSAFE_JDK_SEARCH_DIRS
# (default: /usr/lib/jvm /opt/java /opt ~/.sdkman/candidates/java ~/.jdks). Source common.sh first.

TENSAFE_JDK_MIN=25

# Options for every JVM that runs the project's code: native access for DJL and JCuda, and the
# incubating Vector API that the CPU NTT runs on (kernels-core NttImplementation; without it the
# NTT falls back to scalar loops, about 3 times slower, and logs a warning).
TENSAFE_JVM_OPTIONS=(--enable-native-access=ALL-UNNAMED --add-modules jdk.incubator.vector)

# PyTorch's OpenMP threads (DJL's engine) spin between operations by default and took both cores
# from the node's BF16 product threads: 374 ms a token at the 1.5B shape against 168 ms passive
# (docs/benchmarks.md, "Two-byte weights faster than four"). Every JVM the scripts start gets it.
export OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}"

# The JVM prints this warning at every start with the Vector API. It is expected, not a fault:
# the project's commands drop it, and `up` says once, as information, why it heads each log.
TENSAFE_VECTOR_WARNING='^WARNING: Using incubator modules: jdk.incubator.vector$'
TENSAFE_VECTOR_NOTICE="the CPU HE kernels run on the JDK's incubating Vector API; the JVM's one-line warning about it at the top of each service log is expected"

# Runs the project's Java code with TENSAFE_JVM_OPTIONS, without the Vector API warning on stderr.
tensafe_java() {
  "$JAVA_HOME/bin/java" "${TENSAFE_JVM_OPTIONS[@]}" "$@" 2> >(grep -v "$TENSAFE_VECTOR_WARNING" >&2)
}

# As tensafe_java, in place of this shell: for a long-running command, so that a signal sent to
# ./tensafe's own pid (a supervisor's SIGTERM) reaches the JVM instead of leaving it orphaned.
tensafe_exec_java() {
  exec "$JAVA_HOME/bin/java" "${TENSAFE_JVM_OPTIONS[@]}" "$@" 2> >(grep -v "$TENSAFE_VECTOR_WARNING" >&2)
}

# Prints the feature release (e.g. 25) of the JDK at $1, or nothing if it is not a JDK.
tensafe_jdk_feature() {
  local home=$1 version=""
  [ -x "$home/bin/javac" ] && [ -x "$home/bin/java" ] || return 0
  if [ -f "$home/release" ]; then
    version=$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release")
  fi
  if [ -z "$version" ]; then
    version=$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -n 1) \
      || version=""
  fi
  version=${version#1.}
  printf '%s\n' "${version%%[.+-]*}"
}

tensafe_find_jdk() {
  local candidates=() c feature java_on_path
  [ -n "${JAVA_HOME:-}" ] && candidates+=("$JAVA_HOME")
  java_on_path=$(command -v java 2>/dev/null || true)
  [ -n "$java_on_path" ] && candidates+=("$(dirname "$(dirname "$(readlink -f "$java_on_path")")")")
  local dir
  for dir in ${TENSAFE_JDK_SEARCH_DIRS:-/usr/lib/jvm /opt/java /opt $HOME/.sdkman/candidates/java $HOME/.jdks}; do
    for c in "$dir"/*; do
      [ -d "$c" ] && candidates+=("$c")
    done
  done
  for c in "${candidates[@]}"; do
    feature=$(tensafe_jdk_feature "$c")
    if [ -n "$feature" ] && [ "$feature" -ge "$TENSAFE_JDK_MIN" ] 2>/dev/null; then
      readlink -f "$c"
      return 0
    fi
  done
  return 1
}

tensafe_use_jdk() {
  local home
  home=$(tensafe_find_jdk) \
    || tensafe_die "no JDK $TENSAFE_JDK_MIN found (looked at JAVA_HOME, java on PATH and ${TENSAFE_JDK_SEARCH_DIRS:-/usr/lib/jvm, /opt}); install a JDK $TENSAFE_JDK_MIN such as Temurin $TENSAFE_JDK_MIN, or set JAVA_HOME to one"
  export JAVA_HOME=$home
  export PATH="$home/bin:$PATH"
}
