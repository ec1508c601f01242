# Starting, watching and stopping the local services for `./tensafe up` and `./tensafe down`.
# State lives in .tensafe/run/: <name>.pid and <name>.log per service. Source common.sh first.

# name|module|port variable|default port[|environment for this service: NAME=value ...]
TENSAFE_DEFAULT_SERVICES="marketplace|marketplace-api|TENSAFE_MARKETPLACE_PORT|8080
node|inference-node/service|TENSAFE_NODE_PORT|8090"
TENSAFE_SERVICES=$TENSAFE_DEFAULT_SERVICES

# A cluster started by `up --replicas R --nodes M` writes its service lines here, so that `down`
# and `status` find every replica and node, and the load balancer runs as service "haproxy".
TENSAFE_CLUSTER_FILE="$TENSAFE_RUN_DIR/cluster-services"
[ -f "$TENSAFE_CLUSTER_FILE" ] && TENSAFE_SERVICES=$(cat "$TENSAFE_CLUSTER_FILE")

# tensafe_cluster_services REPLICAS NODES: service lines for REPLICAS marketplaces on the ports
# after the marketplace's (TENSAFE_MARKETPLACE_PORT, 8080: 8081, 8082, ...) and NODES nodes
# (demo-node-1.., on the ports after TENSAFE_NODE_PORT's), each node with its own outbox; the
# load balancer takes the marketplace's port itself.
tensafe_cluster_services() {
  local replicas=$1 nodes=$2 i lines="" mport=${TENSAFE_MARKETPLACE_PORT:-8080} nport=${TENSAFE_NODE_PORT:-8090}
  for ((i = 1; i <= replicas; i++)); do
    lines+="marketplace-$i|marketplace-api|TENSAFE_MARKETPLACE_${i}_PORT|$((mport + i))|TENSAFE_MARKETPLACE_PORT=$((mport + i))"$'\n'
  done
  for ((i = 1; i <= nodes; i++)); do
    lines+="node-$i|inference-node/service|TENSAFE_NODE_${i}_PORT|$((nport + i))|TENSAFE_NODE_PORT=$((nport + i)) TENSAFE_NODE_NAME=demo-node-$i TENSAFE_NODE_OUTBOX=$TENSAFE_RUN_DIR/node-$i-outbox"$'\n'
  done
  printf '%s' "${lines%$'\n'}"
}

tensafe_service_field() { printf '%s\n' "$1" | cut -d'|' -f"$2"; }

tensafe_service_port() {
  local line=$1 var default
  var=$(tensafe_service_field "$line" 3)
  default=$(tensafe_service_field "$line" 4)
  printf '%s\n' "${!var:-$default}"
}

tensafe_service_pid() {
  local pidfile="$TENSAFE_RUN_DIR/$1.pid" pid
  [ -f "$pidfile" ] || return 1
  pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    printf '%s\n' "$pid"
  else
    rm -f "$pidfile"
    return 1
  fi
}

tensafe_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

tensafe_http_ok() { curl -fs -o /dev/null --max-time 2 "$1"; }

# Starts one service in the background unless it is already running. Prints nothing on success.
tensafe_service_start() {
  local line=$1 name module port jar pid
  name=$(tensafe_service_field "$line" 1)
  module=$(tensafe_service_field "$line" 2)
  port=$(tensafe_service_port "$line")
  if pid=$(tensafe_service_pid "$name"); then
    tensafe_say "$name already running (pid $pid) on http://127.0.0.1:$port"
    return 0
  fi
  if tensafe_port_in_use "$port"; then
    tensafe_die "port $port for the $name is taken by another program; stop it or choose another port with $(tensafe_service_field "$line" 3)=<port>"
  fi
  jar="$TENSAFE_ROOT/$module/target/quarkus-app/quarkus-run.jar"
  [ -f "$jar" ] || tensafe_die "$jar is missing; run ./tensafe build"
  mkdir -p "$TENSAFE_RUN_DIR"
  # setsid: the service gets its own process group, so a terminal Ctrl-C reaches only ./tensafe,
  # which then stops each service in order instead of racing them.
  local environment=()
  read -r -a environment <<<"$(tensafe_service_field "$line" 5)"
  setsid env "${environment[@]}" "$JAVA_HOME/bin/java" "${TENSAFE_JVM_OPTIONS[@]}" -jar "$jar" \
    >"$TENSAFE_RUN_DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$TENSAFE_RUN_DIR/$name.pid"
}

# Waits until URL answers, while the service NAME keeps running; dies with its log's tail if it
# exits or SECONDS pass first.
tensafe_await_ready() {
  local name=$1 url=$2 seconds=$3
  local tries=$((seconds * 2))
  while [ "$tries" -gt 0 ]; do
    tensafe_http_ok "$url" && return 0
    if ! tensafe_service_pid "$name" >/dev/null; then
      tail -n 20 "$TENSAFE_RUN_DIR/$name.log" >&2
      tensafe_die "the $name exited during start; its log is $TENSAFE_RUN_DIR/$name.log"
    fi
    sleep 0.5
    tries=$((tries - 1))
  done
  tail -n 20 "$TENSAFE_RUN_DIR/$name.log" >&2
  tensafe_die "the $name did not become ready at $url within $seconds s; its log is $TENSAFE_RUN_DIR/$name.log"
}

# Waits for a service's readiness endpoint.
tensafe_service_await() {
  local line=$1
  tensafe_await_ready "$(tensafe_service_field "$line" 1)" \
    "http://127.0.0.1:$(tensafe_service_port "$line")/q/health/ready" 120
}

tensafe_service_stop() {
  local name=$1 pid
  pid=$(tensafe_service_pid "$name") || return 0
  # Services run in their own process group (setsid), so signal the group: a wrapper script such
  # as Keycloak's kc.sh and the JVM it started stop together.
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  local tries=40
  while kill -0 "$pid" 2>/dev/null && [ "$tries" -gt 0 ]; do
    sleep 0.25
    tries=$((tries - 1))
  done
  kill -0 "$pid" 2>/dev/null && { kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null; }
  rm -f "$TENSAFE_RUN_DIR/$name.pid"
  tensafe_say "stopped $name (pid $pid)"
}

tensafe_services_each() {
  local fn=$1 line
  while IFS= read -r line; do
    "$fn" "$line"
  done <<<"$TENSAFE_SERVICES"
}

# The cluster's load balancer: HAProxy from Debian's packages on the marketplace's usual port,
# least-connections over the replicas that answer /q/health/ready, long timeouts for streams, and
# a retry on another replica only when a connection could not be made (never after a request was
# sent, so nothing is submitted twice).
tensafe_lb_start() {
  local port=$1 cfg="$TENSAFE_RUN_DIR/haproxy.cfg" line name
  if tensafe_service_pid haproxy >/dev/null; then
    tensafe_say "haproxy already running"
    return 0
  fi
  tensafe_port_in_use "$port" && tensafe_die "port $port for the load balancer is taken; stop what uses it or set TENSAFE_MARKETPLACE_PORT"
  {
    cat <<CFG
global
  maxconn 4096
defaults
  mode http
  timeout connect 2s
  timeout client 600s
  timeout server 600s
  retries 2
  option redispatch
frontend marketplace
  bind 127.0.0.1:$port
  default_backend replicas
backend replicas
  balance leastconn
  option httpchk GET /q/health/ready
  http-check expect status 200
  default-server inter 1s fall 2 rise 2
CFG
    while IFS= read -r line; do
      name=$(tensafe_service_field "$line" 1)
      [[ $name == marketplace-* ]] || continue
      echo "  server $name 127.0.0.1:$(tensafe_service_port "$line") check"
    done <<<"$TENSAFE_SERVICES"
  } >"$cfg"
  haproxy -c -q -f "$cfg" || tensafe_die "the generated $cfg is not valid HAProxy configuration"
  setsid haproxy -db -f "$cfg" >"$TENSAFE_RUN_DIR/haproxy.log" 2>&1 </dev/null &
  echo $! >"$TENSAFE_RUN_DIR/haproxy.pid"
}

