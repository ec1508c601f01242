# Shared shell helpers for ./tensafe, ./mvnw and .ci/run. Source it; it defines functions only.
# Every user-facing failure goes through tensafe_die: one line that says what is wrong and what to do.

tensafe_say() { printf 'tensafe: %s\n' "$*" >&2; }

tensafe_die() {
  printf 'tensafe: error: %s\n' "$*" >&2
  exit 1
}

tensafe_is_root() { [ "$(id -u)" = 0 ]; }

# Installs Debian packages if any of them is missing. Idempotent; needs root.
tensafe_apt_install() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  tensafe_is_root || tensafe_die "packages missing: ${missing[*]}; install them (apt-get install ${missing[*]}) or run as root"
  tensafe_say "installing Debian packages: ${missing[*]}"
  if [ ! -f /var/lib/tensafe-apt-updated ] || [ -n "$(find /var/lib/tensafe-apt-updated -mmin +1440 2>/dev/null)" ]; then
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || tensafe_die "apt-get update failed; check the package sources"
    touch /var/lib/tensafe-apt-updated
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null \
    || tensafe_die "apt-get install ${missing[*]} failed; run it by hand to see why"
}

# Waits until "$@" succeeds, polling every half second for at most $1 seconds. Returns 1 on timeout.
tensafe_wait_for() {
  local seconds=$1
  shift
  local tries=$((seconds * 2))
  while [ "$tries" -gt 0 ]; do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.5
    tries=$((tries - 1))
  done
  return 1
}
