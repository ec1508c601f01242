#!/usr/bin/env bash
# Starts an image built by `./tensafe images` without a container runtime (none runs on this
# machine kind): unpacks its layers in order into a root file system and runs its entrypoint there
# with chroot, as its user, with /proc mounted and the host's network, until PORT answers
# /q/health/live; then stops it. What is checked is the image's own content: the Debian base, the
# jlinked runtime, the application and its entrypoint.
#   deploy/images/run-image.sh IMAGE.tar PORT [NAME=VALUE ...]
# Needs root (chroot, mount) and python3 (to read the image's JSON).
set -euo pipefail
image=$1 port=$2
shift 2
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  umount "$work/root/proc" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/image" "$work/root"
tar -C "$work/image" -xf "$image"
read_json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
for layer in $(read_json "$work/image/manifest.json" '"\n".join(d[0]["Layers"])'); do
  tar -C "$work/root" -xzf "$work/image/$layer" 2>/dev/null || tar -C "$work/root" -xf "$work/image/$layer"
done
config="$work/image/$(read_json "$work/image/manifest.json" 'd[0]["Config"]')"
user=$(read_json "$config" 'd["config"].get("User", "0")')
workdir=$(read_json "$config" 'd["config"].get("WorkingDir", "/")')
mapfile -t entrypoint < <(read_json "$config" '"\n".join(d["config"]["Entrypoint"])')
mapfile -t environment < <(read_json "$config" '"\n".join(d["config"].get("Env", []))')
mount -t proc proc "$work/root/proc"
chroot --userspec="$user:$user" "$work/root" /usr/bin/env -i "${environment[@]}" "$@" \
  /bin/sh -c "cd '$workdir' && exec \"\$@\"" sh "${entrypoint[@]}" >"$work/run.log" 2>&1 &
pid=$!
for _ in $(seq 120); do
  if curl -fs -o /dev/null "http://127.0.0.1:$port/q/health/live"; then
    echo "$(basename "$image"): started as user $user, live on port $port"
    exit 0
  fi
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
tail -n 20 "$work/run.log" >&2
echo "$(basename "$image") did not become live on port $port" >&2
exit 1
