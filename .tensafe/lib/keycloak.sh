# Keycloak for `./tensafe up` and the end-to-end tests: the pinned server distribution from Maven
# Central, cached once, started on 127.0.0.1 with its own PostgreSQL database and the realm in
# marketplace-api/src/main/keycloak/tensafe-realm.json imported fresh on every start (the
# database is recreated, so the realm file is the single source of truth). Source common.sh,
# jdk.sh, postgres.sh and services.sh first.

TENSAFE_KEYCLOAK_VERSION=26.7.3
TENSAFE_KEYCLOAK_PORT=${TENSAFE_KEYCLOAK_PORT:-8180}
TENSAFE_KEYCLOAK_MANAGEMENT_PORT=${TENSAFE_KEYCLOAK_MANAGEMENT_PORT:-9180}
TENSAFE_KEYCLOAK_CACHE=${TENSAFE_KEYCLOAK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tensafe}
TENSAFE_KEYCLOAK_HOME="$TENSAFE_KEYCLOAK_CACHE/keycloak-$TENSAFE_KEYCLOAK_VERSION"
TENSAFE_KEYCLOAK_REALM_FILE="$TENSAFE_ROOT/marketplace-api/src/main/keycloak/tensafe-realm.json"

tensafe_keycloak_issuer() { printf 'http://127.0.0.1:%s/realms/tensafe\n' "$TENSAFE_KEYCLOAK_PORT"; }

tensafe_keycloak_ready() {
  tensafe_http_ok "$(tensafe_keycloak_issuer)/.well-known/openid-configuration"
}

# tensafe_fetch_progress PID DIR TOTAL_MB SECONDS: while PID runs, says every SECONDS how many MB
# have arrived in DIR so far. DIR may not exist yet (Maven fetches its own plugins first): that is
# 0 MB, never an error, so a script under `set -euo pipefail` goes on.
tensafe_fetch_progress() {
  local pid=$1 dir=$2 total=$3 seconds=$4 mb
  while kill -0 "$pid" 2>/dev/null; do
    sleep "$seconds"
    if kill -0 "$pid" 2>/dev/null; then
      mb=$(du -sm "$dir" 2>/dev/null | cut -f1) || mb=0
      tensafe_say "  ... ${mb:-0} of about $total MB"
    fi
  done
}

# Fetches the distribution (a Maven Central artifact) and unpacks it into the cache, once.
tensafe_keycloak_install() {
  [ -x "$TENSAFE_KEYCLOAK_HOME/bin/kc.sh" ] && return 0
  command -v unzip >/dev/null 2>&1 || tensafe_apt_install unzip
  mkdir -p "$TENSAFE_KEYCLOAK_CACHE"
  tensafe_say "fetching Keycloak $TENSAFE_KEYCLOAK_VERSION (once, about 170 MB) ..."
  "$TENSAFE_ROOT/mvnw" -q -f "$TENSAFE_ROOT/pom.xml" dependency:copy \
    -Dartifact="org.keycloak:keycloak-quarkus-dist:$TENSAFE_KEYCLOAK_VERSION:zip" \
    -DoutputDirectory="$TENSAFE_KEYCLOAK_CACHE" -Dmdep.stripVersion=false >&2 &
  local fetch=$!
  tensafe_fetch_progress "$fetch" \
    "$HOME/.m2/repository/org/keycloak/keycloak-quarkus-dist/$TENSAFE_KEYCLOAK_VERSION" 170 10
  wait "$fetch" \
    || tensafe_die "could not fetch org.keycloak:keycloak-quarkus-dist:$TENSAFE_KEYCLOAK_VERSION:zip"
  local zip="$TENSAFE_KEYCLOAK_CACHE/keycloak-quarkus-dist-$TENSAFE_KEYCLOAK_VERSION.zip"
  local staging="$TENSAFE_KEYCLOAK_CACHE/.unpack-$$"
  rm -rf "$staging"
  unzip -q "$zip" -d "$staging" || tensafe_die "could not unpack $zip"
  mv "$staging/keycloak-$TENSAFE_KEYCLOAK_VERSION" "$TENSAFE_KEYCLOAK_HOME"
  rm -rf "$staging" "$zip"
}

# Starts Keycloak in the background (pid in .tensafe/run/keycloak.pid) unless it already runs.
tensafe_keycloak_start() {
  local pid
  if pid=$(tensafe_service_pid keycloak); then
    tensafe_say "keycloak already running (pid $pid) on http://127.0.0.1:$TENSAFE_KEYCLOAK_PORT"
    return 0
  fi
  if tensafe_port_in_use "$TENSAFE_KEYCLOAK_PORT"; then
    tensafe_die "port $TENSAFE_KEYCLOAK_PORT for Keycloak is taken by another program; stop it or set TENSAFE_KEYCLOAK_PORT"
  fi
  tensafe_keycloak_install
  # A fresh database every start: the realm file in the repository is imported as it is now.
  tensafe_pg_admin -c "DROP DATABASE IF EXISTS keycloak WITH (FORCE)" </dev/null >/dev/null
  tensafe_pg_admin -c "CREATE DATABASE keycloak OWNER $TENSAFE_PG_ROLE" </dev/null >/dev/null
  mkdir -p "$TENSAFE_KEYCLOAK_HOME/data/import" "$TENSAFE_RUN_DIR"
  cp "$TENSAFE_KEYCLOAK_REALM_FILE" "$TENSAFE_KEYCLOAK_HOME/data/import/tensafe-realm.json"
  tensafe_say "starting Keycloak on http://127.0.0.1:$TENSAFE_KEYCLOAK_PORT (the first start takes about a minute)"
  JAVA_HOME=$JAVA_HOME KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD=admin \
    setsid bash "$TENSAFE_KEYCLOAK_HOME/bin/kc.sh" start-dev \
    --http-host=127.0.0.1 --http-port="$TENSAFE_KEYCLOAK_PORT" \
    --http-management-port="$TENSAFE_KEYCLOAK_MANAGEMENT_PORT" \
    --hostname-strict=false \
    --db=postgres --db-url="jdbc:postgresql://$TENSAFE_PG_HOST:$TENSAFE_PG_PORT/keycloak" \
    --db-username="$TENSAFE_PG_ROLE" --db-password="$TENSAFE_PG_PASSWORD" \
    --import-realm \
    >"$TENSAFE_RUN_DIR/keycloak.log" 2>&1 </dev/null &
  echo $! >"$TENSAFE_RUN_DIR/keycloak.pid"
}

# Waits until the realm's discovery document answers; dies with the log's tail if it does not.
tensafe_keycloak_await() {
  tensafe_await_ready keycloak "$(tensafe_keycloak_issuer)/.well-known/openid-configuration" \
    "${TENSAFE_KEYCLOAK_WAIT_SECONDS:-240}"
}
