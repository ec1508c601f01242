#!/usr/bin/env bash
# Makes the base image the services' OCI images are built on, from what this machine can reach:
# a minimal Debian root file system from Debian's packages (debootstrap, from this machine's own
# apt sources) and a jlinked Java 25 runtime in /opt/jdk, written as one layer in a `docker save`
# tarball that Jib reads as `tar://` (no registry, no Docker daemon).
#   deploy/images/base-image.sh OUT.tar
# Needs root (debootstrap, chroot) and JAVA_HOME pointing at a JDK 25.
set -euo pipefail
out=$1
work=$(mktemp -d)
trap 'umount "$work/rootfs/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
rootfs="$work/rootfs"

mirror=$(sed -n 's/^URIs: //p' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
[ -n "$mirror" ] || { echo "no Debian package source configured on this machine" >&2; exit 1; }
suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
debootstrap --variant=minbase "$suite" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }
# What a runtime image does not need: package caches, documentation, the apt lists.
rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/usr/share/doc/* \
  "$rootfs"/usr/share/man/* "$rootfs"/usr/share/locale/*

"$JAVA_HOME/bin/jlink" \
  --add-modules java.se,jdk.unsupported,jdk.incubator.vector,jdk.crypto.ec,jdk.crypto.cryptoki,jdk.zipfs,jdk.naming.dns,jdk.net,jdk.management,jdk.jfr,jdk.localedata,jdk.httpserver \
  --strip-debug --no-header-files --no-man-pages --compress zip-6 --output "$rootfs/opt/jdk"
# The runtime starts inside the root file system (with /proc, as a container has it).
mount -t proc proc "$rootfs/proc"
chroot "$rootfs" /opt/jdk/bin/java -version 2>&1 | grep -q 'version "25' \
  || { echo "the jlinked runtime does not start inside the Debian root file system" >&2; exit 1; }
umount "$rootfs/proc"
useradd --root "$rootfs" --uid 10001 --home-dir /app --no-create-home tensafe
# The services' state (packages, outboxes, adapter caches): a volume in a real deployment.
install -d -o 10001 -g 10001 "$rootfs/var/lib/tensafe"

mkdir -p "$work/image"
tar --numeric-owner --sort=name --mtime='2026-01-01 00:00Z' -C "$rootfs" -cf "$work/image/layer.tar" .
diff_id=$(sha256sum "$work/image/layer.tar" | cut -d' ' -f1)
cat >"$work/image/config.json" <<JSON
{"architecture":"amd64","os":"linux","config":{"Env":["PATH=/opt/jdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","JAVA_HOME=/opt/jdk"]},"rootfs":{"type":"layers","diff_ids":["sha256:$diff_id"]},"history":[{"created_by":"deploy/images/base-image.sh: debootstrap $suite minbase + jlinked Java 25"}]}
JSON
echo '[{"Config":"config.json","RepoTags":["tensafe/base:java25"],"Layers":["layer.tar"]}]' >"$work/image/manifest.json"
tar -C "$work/image" -cf "$out" manifest.json config.json layer.tar
echo "base image: $out ($(du -h "$out" | cut -f1))"
