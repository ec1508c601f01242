# PostgreSQL provisioning shared by `./tensafe up` and `./tensafe test` (and so by .ci/run).
# Uses a server on 127.0.0.1:5432 if one answers; otherwise installs Debian's postgresql package
# and starts its cluster. Then creates the tensafe role and the tensafe and tensafe_test databases.
# Every step is idempotent. Source common.sh first.

TENSAFE_PG_HOST=127.0.0.1
TENSAFE_PG_PORT=${TENSAFE_PG_PORT:-5432}
TENSAFE_PG_ROLE=tensafe
TENSAFE_PG_PASSWORD=tensafe
# The database `up` serves (TENSAFE_DB_NAME, default tensafe) and the one the Maven tests use.
TENSAFE_DB_NAME=${TENSAFE_DB_NAME:-tensafe}
case $TENSAFE_DB_NAME in
  *[!a-z0-9_]* | "") tensafe_die "TENSAFE_DB_NAME must be lower-case letters, digits and '_': '$TENSAFE_DB_NAME'" ;;
esac
TENSAFE_PG_DATABASES="$TENSAFE_DB_NAME tensafe_test"

tensafe_pg_ready() {
  if command -v pg_isready >/dev/null 2>&1; then
    pg_isready -q -h "$TENSAFE_PG_HOST" -p "$TENSAFE_PG_PORT"
  else
    (exec 3<>"/dev/tcp/$TENSAFE_PG_HOST/$TENSAFE_PG_PORT") 2>/dev/null
  fi
}

# Runs psql as the cluster's superuser: over TCP when the server trusts loopback, else via the socket.
tensafe_pg_admin() {
  if psql -h "$TENSAFE_PG_HOST" -p "$TENSAFE_PG_PORT" -U postgres -d postgres -tAc 'SELECT 1' >/dev/null 2>&1 </dev/null; then
    psql -h "$TENSAFE_PG_HOST" -p "$TENSAFE_PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA "$@"
  elif tensafe_is_root && id postgres >/dev/null 2>&1; then
    runuser -u postgres -- psql -p "$TENSAFE_PG_PORT" -d postgres -v ON_ERROR_STOP=1 -qtA "$@"
  else
    tensafe_die "cannot act as the PostgreSQL superuser on $TENSAFE_PG_HOST:$TENSAFE_PG_PORT; run as root or allow 'postgres' to connect over loopback"
  fi
}

tensafe_pg_start_local_cluster() {
  local version
  if [ ! -d /etc/postgresql ] || [ -z "$(ls -A /etc/postgresql 2>/dev/null)" ]; then
    tensafe_apt_install postgresql postgresql-client
  fi
  command -v pg_ctlcluster >/dev/null 2>&1 || tensafe_apt_install postgresql-common
  version=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1) || version=""
  [ -n "$version" ] || tensafe_die "no PostgreSQL cluster under /etc/postgresql after install; run 'pg_createcluster' by hand"
  if [ ! -d "/etc/postgresql/$version/main" ]; then
    tensafe_is_root || tensafe_die "PostgreSQL $version has no 'main' cluster; run as root so it can be created"
    pg_createcluster "$version" main >/dev/null || tensafe_die "pg_createcluster $version main failed"
  fi
  tensafe_say "starting PostgreSQL $version cluster 'main'"
  tensafe_is_root || tensafe_die "PostgreSQL is not running on $TENSAFE_PG_HOST:$TENSAFE_PG_PORT and only root can start it here; start it and retry"
  # pg_ctlcluster runs the server as the postgres user even when called by root.
  pg_ctlcluster --skip-systemctl-redirect "$version" main start 2>/dev/null || true
}

tensafe_pg_create_role_and_databases() {
  local db
  tensafe_pg_admin <<SQL >/dev/null
DO \$\$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$TENSAFE_PG_ROLE') THEN
    CREATE ROLE $TENSAFE_PG_ROLE LOGIN PASSWORD '$TENSAFE_PG_PASSWORD';
  END IF;
END
\$\$;
SQL
  for db in $TENSAFE_PG_DATABASES; do
    if [ -z "$(tensafe_pg_admin -c "SELECT 1 FROM pg_database WHERE datname = '$db'" </dev/null)" ]; then
      tensafe_pg_admin -c "CREATE DATABASE $db OWNER $TENSAFE_PG_ROLE" </dev/null >/dev/null \
        || tensafe_die "could not create database $db"
    fi
  done
}

# Ensures a reachable server with the tensafe role and databases. Dies with one clear line if not.
tensafe_ensure_postgres() {
  command -v psql >/dev/null 2>&1 || tensafe_apt_install postgresql-client
  if ! tensafe_pg_ready; then
    tensafe_pg_start_local_cluster
    tensafe_wait_for "${TENSAFE_PG_WAIT_SECONDS:-30}" tensafe_pg_ready \
      || tensafe_die "PostgreSQL is still unreachable on $TENSAFE_PG_HOST:$TENSAFE_PG_PORT after install and start; see /var/log/postgresql/ and check nothing else holds the port"
  fi
  tensafe_pg_create_role_and_databases
  PGPASSWORD=$TENSAFE_PG_PASSWORD psql -h "$TENSAFE_PG_HOST" -p "$TENSAFE_PG_PORT" -U "$TENSAFE_PG_ROLE" -d "$TENSAFE_DB_NAME" -tAc 'SELECT 1' >/dev/null 2>&1 </dev/null \
    || tensafe_die "role $TENSAFE_PG_ROLE cannot log in to $TENSAFE_PG_HOST:$TENSAFE_PG_PORT/$TENSAFE_DB_NAME; check pg_hba.conf allows password or trust auth on loopback"
}

# Drops and recreates the database `up` serves. Its uploaded packages and demo keys, kept in
# TENSAFE_DATA_DIR beside it, go with it.
tensafe_pg_reset_database() {
  tensafe_pg_admin -c "DROP DATABASE IF EXISTS $TENSAFE_DB_NAME WITH (FORCE)" </dev/null >/dev/null \
    || tensafe_die "could not drop database $TENSAFE_DB_NAME"
  rm -rf "$TENSAFE_DATA_DIR"
  tensafe_pg_create_role_and_databases
}
