# What `up` adds for a demo: the trained demo model, the demo fleet's keys, and the demo adapter
# published through the real API with an API key. Source common.sh, jdk.sh and build.sh first.

# Unless the user points the node elsewhere (TENSAFE_MARKETPLACE_URL), `up` connects it to this
# marketplace as demo-node-1 of the demo fleet, whose keys are written once under the run directory.
ensure_demo_fleet() {
  [ -z "${TENSAFE_MARKETPLACE_URL:-}" ] || return 0
  local dir="$TENSAFE_DATA_DIR/demo"
  tensafe_node_tool io.tensafe.node.tools.demo.DemoCommand keys --dir "$dir" \
    || tensafe_die "could not write the demo keys"
  local mport
  # Through the load balancer when `up` runs a cluster.
  mport=${TENSAFE_LB_PORT:-$(tensafe_service_port "$(sed -n 1p <<<"$TENSAFE_SERVICES")")}
  export TENSAFE_MARKETPLACE_URL="http://127.0.0.1:$mport"
  export TENSAFE_NODE_TOKEN_URL="http://127.0.0.1:$TENSAFE_KEYCLOAK_PORT/realms/tensafe/protocol/openid-connect/token"
  export TENSAFE_NODE_CLIENT_ID=tensafe-node TENSAFE_NODE_CLIENT_SECRET=tensafe-node-dev-secret
  export TENSAFE_NODE_FLEET_ID=tensafe-demo TENSAFE_NODE_FLEET_KEY="$dir/fleet-private.json"
  export TENSAFE_NODE_NAME=demo-node-1 TENSAFE_NODE_BASE_MODEL=tensafe/qwen3-demo
  export TENSAFE_NODE_OUTBOX="$TENSAFE_RUN_DIR/node-outbox"
  # `auto` requests that match no adapter's keywords go to the demo adapter.
  export TENSAFE_DEFAULT_ADAPTER=${TENSAFE_DEFAULT_ADAPTER:-demo-banking}
  TENSAFE_DEMO_SEED=true
}

# Publishes the demo adapter through the real API and prints how to call it.
seed_demo() {
  [ "${TENSAFE_DEMO_SEED:-}" = true ] || return 0
  local out env="$TENSAFE_RUN_DIR/demo.env"
  if demo_env_still_works "$env"; then
    # Idempotent: an earlier `up` published the demo and made this key; both are still there.
    out=$(cat "$env")
    tensafe_say "the demo adapter is published and its API key works (from $env); nothing to seed"
  else
    tensafe_say "publishing the demo adapter (a signed, encrypted TGSP package) and creating an API key ..."
    out=$(tensafe_node_tool io.tensafe.node.tools.demo.DemoCommand seed \
      --dir "$TENSAFE_DATA_DIR/demo" --marketplace "$TENSAFE_MARKETPLACE_URL" \
      --keycloak "http://127.0.0.1:$TENSAFE_KEYCLOAK_PORT" --model-dir "$TENSAFE_NODE_MODEL_DIR" \
      2>"$TENSAFE_RUN_DIR/demo-seed.log") \
      || tensafe_die "seeding the demo failed: $(grep -v 'incubator' "$TENSAFE_RUN_DIR/demo-seed.log" | tail -n 1) (log: $TENSAFE_RUN_DIR/demo-seed.log)"
    printf '%s\n' "$out" >"$env"
  fi
  wait_for_first_completion "$out"
  cat <<TXT

Metered API (OpenAI-compatible), saved in $env:
$out
  Load it into your shell, then try it:
    set -a; . $env; set +a
    curl -s \$OPENAI_BASE_URL/chat/completions -H "Authorization: Bearer \$OPENAI_API_KEY" \\
      -H 'Content-Type: application/json' \\
      -d '{"model":"auto","messages":[{"role":"user","content":"How do I apply for a mortgage?"}],"max_tokens":16}'
TXT
}

# Returns once a completion through the key in $1 (demo.env's lines) is served, so that the sample
# `curl` printed after it works at once: sends one itself (1 token of the demo adapter, billed to the
# demo organisation) each second until it gets 200, for up to TENSAFE_FIRST_COMPLETION_SECONDS (120);
# a node that has just started is routable only once it has registered and reported its adapters.
wait_for_first_completion() {
  local base key answer code=""
  base=$(sed -n 's/^OPENAI_BASE_URL=//p' <<<"$1")
  key=$(sed -n 's/^OPENAI_API_KEY=//p' <<<"$1")
  for _ in $(seq "${TENSAFE_FIRST_COMPLETION_SECONDS:-120}"); do
    answer=$(curl -s --max-time 30 -w '\n%{http_code}' "$base/chat/completions" \
      -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \
      -d '{"model":"auto","messages":[{"role":"user","content":"Hello"}],"max_tokens":1}') \
      || answer=$'\n000'
    code=${answer##*$'\n'}
    if [ "$code" = 200 ]; then
      tensafe_say "a first completion through this key was served (1 token, billed to the demo organisation)"
      return 0
    fi
    sleep 1
  done
  tensafe_die "no completion was served through the demo key in ${TENSAFE_FIRST_COMPLETION_SECONDS:-120} s; the last answer (HTTP $code): ${answer%$'\n'*}"
}

# True when $1 holds an OPENAI_BASE_URL and OPENAI_API_KEY that this marketplace still accepts and
# that list the demo adapter: the database was not reset since they were made.
demo_env_still_works() {
  local env=$1 base key
  [ -f "$env" ] || return 1
  base=$(sed -n 's/^OPENAI_BASE_URL=//p' "$env")
  key=$(sed -n 's/^OPENAI_API_KEY=//p' "$env")
  [ "$base" = "$TENSAFE_MARKETPLACE_URL/v1" ] && [ -n "$key" ] || return 1
  curl -fs -H "Authorization: Bearer $key" "$base/models" 2>/dev/null | grep -q '"demo-banking"'
}

# The node serves TENSAFE_NODE_MODEL_DIR; unless the user set one, `up` serves the trained demo
# model (built once, seed 1, under the run directory; its demo adapter in demo-adapter/).
ensure_demo_model() {
  if [ -n "${TENSAFE_NODE_MODEL_DIR:-}" ]; then
    return 0
  fi
  ensure_trained_demo_model "$TENSAFE_DEMO_MODEL_DIR"
  export TENSAFE_NODE_MODEL_DIR="$TENSAFE_DEMO_MODEL_DIR"
}

# Where `up` and `test` keep the trained demo model.
TENSAFE_DEMO_MODEL_DIR="$TENSAFE_RUN_DIR/models/demo"

# What `model demo` needs (Debian packages): the corpus (bible-kjv-text: the King James Bible, public
# domain; bible-kjv's `bible` prints it), PyTorch, and OpenBLAS (the reference BLAS is 8x slower).
tensafe_demo_model_packages() {
  tensafe_apt_install bible-kjv bible-kjv-text python3-torch libopenblas0-pthread
}

# demo_model_is_fresh DIR: DIR holds a finished demo model newer than every source that decides it.
demo_model_is_fresh() {
  local dir=$1 tools="$TENSAFE_ROOT/inference-node/tools/src/main"
  [ -f "$dir/tensafe-demo.json" ] && [ -z "$(find "$tools/python" \
    "$tools/java/io/tensafe/node/tools/demomodel" \
    "$TENSAFE_ROOT/inference-node/runtime/src/main/java/io/tensafe/node/model/ModelGenerator.java" \
    -newer "$dir/tensafe-demo.json" -type f -print -quit)" ]
}

# ensure_trained_demo_model DIR: trains the demo model into DIR (a few minutes, seed 1) unless it is
# fresh; the tool itself keeps a folder whose recipe hash (script, data, shape, steps, seed) is
# unchanged. Needs the tools jar (built here only when missing).
ensure_trained_demo_model() {
  local dir=$1
  demo_model_is_fresh "$dir" && return 0
  tensafe_demo_model_packages
  [ -f "$TENSAFE_NODE_TOOLS_JAR" ] || tensafe_package_node_tools
  tensafe_say "training the demo model (Qwen3 architecture, King James Bible) and its banking adapter into $dir (a few minutes, once) ..."
  tensafe_node_tool io.tensafe.node.tools.model.ModelCommand demo --out "$dir" --seed 1 >/dev/null \
    || tensafe_die "could not build the demo model"
}
