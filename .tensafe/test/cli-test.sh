#!/usr/bin/env bash
# Tests of ./tensafe itself: help, bad invocations, the TGSP creator flow, and `up`/`down` end to
# end on spare ports.
# Run by `./tensafe test` after the Maven suite (whose packaged jars `up` reuses).
# Prints "N passed, N failed" and exits non-zero if any check failed.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tensafe="$root/tensafe"
passed=0
failed=0
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
    echo "  ok    $name"
  else
    failed=$((failed + 1))
    echo "  FAIL  $name"
    sed 's/^/        stdout: /' "$out" | tail -n 5
    sed 's/^/        stderr: /' "$err" | tail -n 5
  fi
}

run() { "$@" >"$out" 2>"$err"; echo $? >"$out.rc"; }
rc() { cat "$out.rc"; }
one_line_error() { [ "$(wc -l <"$err")" -eq 1 ] && grep -q "$1" "$err"; }

echo "CLI tests (./tensafe)"

run "$tensafe" --help
check "--help exits 0" test "$(rc)" = 0
for command in up test build down status db client tgsp report bench images fmt help; do
  check "--help explains '$command'" grep -qE "^  $command( |$)" "$out"
done

run "$tensafe" frobnicate
check "unknown command exits 2 with one line" \
  bash -c "[ $(rc) = 2 ] && [ \$(wc -l <'$err') -eq 1 ] && grep -q \"unknown command 'frobnicate'\" '$err'"

run "$tensafe" up --frobnicate
check "unknown option exits non-zero with one line" \
  bash -c "[ $(rc) != 0 ]" && check "unknown option names the option" one_line_error "unknown option for up: '--frobnicate'"

run env JAVA_HOME= TENSAFE_JDK_SEARCH_DIRS=/nonexistent PATH=/usr/bin:/bin "$tensafe" test
check "missing JDK 25 exits 1" test "$(rc)" = 1
check "missing JDK 25 says what to do in one line" one_line_error "no JDK 25 found.*install a JDK 25"

run env TENSAFE_PG_PORT=1 TENSAFE_PG_WAIT_SECONDS=1 "$tensafe" db
check "unreachable PostgreSQL exits 1" test "$(rc)" = 1
check "unreachable PostgreSQL says what to do" grep -q "PostgreSQL is still unreachable on 127.0.0.1:1" "$err"

# The production profile refuses the demo's secrets before it serves anything.
jdk_java=$(bash -c ". '$root/.tensafe/lib/common.sh'; . '$root/.tensafe/lib/jdk.sh'; tensafe_use_jdk >/dev/null 2>&1; echo \$JAVA_HOME")/bin/java
run env QUARKUS_PROFILE=production TENSAFE_MARKETPLACE_PORT=18079 timeout 120 "$jdk_java" \
  -jar "$root/marketplace-api/target/quarkus-app/quarkus-run.jar"
check "the production profile refuses to start with the demo's secrets" \
  bash -c "[ $(rc) != 0 ] && grep -q 'production profile refuses to start' '$out' '$err'"

# The TGSP v2 creator and operator flow, exactly as the acceptance checks drive it.
work=$(mktemp -d)
tgsp() { run "$tensafe" tgsp "$@"; }
tgsp keygen creator --out "$work/keys" --creator-id acme
check "tgsp keygen creator writes creator.key at mode 600" \
  bash -c "[ $(rc) = 0 ] && [ \$(stat -c %a '$work/keys/creator.key') = 600 ] && [ -f '$work/keys/creator.pub' ]"
tgsp keygen creator --out "$work/nokeys"
check "tgsp keygen creator without --creator-id refuses and says where the id is shown" \
  bash -c "[ $(rc) = 2 ] && grep -q 'creator-id' '$err' && [ ! -e '$work/nokeys/creator.key' ]"
tgsp pack --help
check "tgsp pack --help shows the usage, not missing options" \
  bash -c "[ $(rc) = 0 ] && head -n 1 '$out' | grep -q '^Usage: tgsp pack' && ! grep -q 'Missing required' '$out' '$err'"
tgsp keygen fleet --out "$work/keys"
check "tgsp keygen fleet writes fleet.key at mode 600" \
  bash -c "[ $(rc) = 0 ] && [ \$(stat -c %a '$work/keys/fleet.key') = 600 ] && [ -f '$work/keys/fleet.pub' ]"
tgsp example-adapter --out "$work/peft" --rank 8 --hidden 64
tgsp pack --peft "$work/peft" --creator-key "$work/keys/creator.key" --recipient "$work/keys/fleet.pub" \
  --adapter-id banking-helper --version 1.0.0 --base-model Qwen/Qwen2.5-0.5B --price-prompt 1500 \
  --price-completion 2000 --currency USD --keywords "bank,mortgage,interest rate" --domain finance \
  --out "$work/a.tgsp"
check "tgsp pack signs and encrypts a PEFT folder" bash -c "[ $(rc) = 0 ] && grep -q 'packed banking-helper@1.0.0' '$out'"
tgsp verify "$work/a.tgsp" --trust "$work/keys/creator.pub"
check "tgsp verify accepts the package" bash -c "[ $(rc) = 0 ] && grep -q '^VALID' '$out'"
tgsp inspect "$work/a.tgsp" --json
check "tgsp inspect --json shows manifest and signer without a key" \
  python3 -c "import json,sys; d=json.load(open('$out')); assert d['manifest']['routing']['keywords']==['bank','mortgage','interest rate']; assert d['signer']['creator_id']=='acme'; assert d['signature_verified'] is False"
tgsp open "$work/a.tgsp" --fleet-key "$work/keys/fleet.key" --trust "$work/keys/creator.pub" --out "$work/opened"
check "tgsp open restores the PEFT folder byte for byte" \
  bash -c "[ $(rc) = 0 ] && cmp -s '$work/peft/adapter_model.safetensors' '$work/opened/adapter_model.safetensors' && [ -f '$work/opened/adapter_config.json' ]"
cp "$work/a.tgsp" "$work/tampered.tgsp"
size=$(stat -c %s "$work/tampered.tgsp")
printf '\x00' | dd of="$work/tampered.tgsp" bs=1 seek=$((size - 20)) conv=notrunc status=none
tgsp verify "$work/tampered.tgsp" --trust "$work/keys/creator.pub"
check "tgsp verify refuses a tampered payload with one line" \
  bash -c "[ $(rc) = 1 ] && [ \$(wc -l <'$err') -eq 1 ] && grep -q 'DigestMismatchException' '$err'"
tgsp keygen creator --out "$work/other" --creator-id mallory
tgsp verify "$work/a.tgsp" --trust "$work/other/creator.pub"
check "tgsp verify refuses an untrusted signer with one line" \
  bash -c "[ $(rc) = 1 ] && [ \$(wc -l <'$err') -eq 1 ] && grep -q 'UnknownSignerException' '$err'"
tgsp pack --peft "$work/peft" --creator-key "$work/keys/creator.key" --recipient "$work/keys/fleet.pub" \
  --adapter-id banking-helper --version 1.0.1 --base-model Qwen/Qwen2.5-0.5B --price-prompt 1500 \
  --price-completion 2000 --keywords bank --domain finance --rank 4 --out "$work/r4.tgsp"
check "tgsp pack --rank 4 reports the retained energy per site" \
  bash -c "[ $(rc) = 0 ] && grep -q 'rank 8 -> 4; retained energy per site' '$out' && [ \$(grep -c 'self_attn' '$out') = 4 ]"
tgsp pack --peft "$work/peft" --creator-key "$work/keys/creator.key" --recipient "$work/keys/fleet.pub" \
  --adapter-id banking-helper --version 1.0.2 --price-prompt 1 --price-completion 1 --keywords bank \
  --domain finance --rank 8 --out "$work/r8.tgsp"
check "tgsp pack --rank not below the adapter's rank is refused" \
  bash -c "[ $(rc) = 1 ] && grep -q 'below the adapter' '$err' && [ ! -e '$work/r8.tgsp' ]"

# The model generator writes a Qwen3-architecture folder, the same bytes for the same seed.
run "$tensafe" model tiny --out "$work/model-a" --seed 9
run "$tensafe" model tiny --out "$work/model-b" --seed 9
check "model tiny writes config, tokenizer and weights, identical for one seed" \
  bash -c "[ $(rc) = 0 ] && grep -q '\"model_type\": \"qwen3\"' '$work/model-a/config.json' \
    && [ -s '$work/model-a/tokenizer.json' ] && cmp -s '$work/model-a/model.safetensors' '$work/model-b/model.safetensors'"

# An adapter is checked against its base model's config at pack time.
tgsp pack --peft "$work/peft" --creator-key "$work/keys/creator.key" --recipient "$work/keys/fleet.pub" \
  --adapter-id banking-helper --version 1.0.3 --base-model tensafe/qwen3-tiny --price-prompt 1 \
  --price-completion 1 --keywords bank --domain finance --base-model-config "$work/model-a/config.json" \
  --out "$work/misfit.tgsp"
check "tgsp pack refuses an adapter that does not fit the base model's config, naming the tensor" \
  bash -c "[ $(rc) = 1 ] && grep -q 'does not fit its base model' '$err' && grep -q 'v_proj' '$err' \
    && [ ! -e '$work/misfit.tgsp' ]"
tgsp example-adapter --out "$work/peft-tiny" --rank 4 --base-model tensafe/qwen3-tiny \
  --base-model-config "$work/model-a/config.json"
tgsp pack --peft "$work/peft-tiny" --creator-key "$work/keys/creator.key" --recipient "$work/keys/fleet.pub" \
  --adapter-id banking-helper --version 1.0.4 --price-prompt 1 --price-completion 1 --keywords bank \
  --domain finance --base-model-config "$work/model-a/config.json" --out "$work/tiny.tgsp"
check "tgsp example-adapter --base-model-config makes an adapter that packs for that model" \
  bash -c "[ $(rc) = 0 ] && grep -q 'packed banking-helper@1.0.4' '$out'"

# The CUDA kernels' build step: without nvcc the build goes on and records why there are no kernels.
run env NVCC=none bash "$root/kernels/kernels-cuda/src/build/build-fatbin.sh" \
  "$root/kernels/kernels-cuda/src/main/cuda" "$work/cuda-none"
check "a build without nvcc succeeds and says the CUDA backend is unavailable" \
  bash -c "[ $(rc) = 0 ] && grep -q 'nvcc not found' '$out' \
    && grep -q '^built=false' '$work/cuda-none/io/tensafe/kernels/cuda/cuda-build.properties' \
    && [ ! -e '$work/cuda-none/io/tensafe/kernels/cuda/tensafe_kernels.fatbin' ]"
rm -rf "$work"

# The Keycloak fetch's progress loop under the entry script's `set -euo pipefail`, while the folder
# it measures does not exist yet (Maven still fetching its own plugins): it goes on, saying 0 MB.
run bash -c "set -euo pipefail; TENSAFE_ROOT='$root'; . '$root/.tensafe/lib/common.sh'; . '$root/.tensafe/lib/keycloak.sh'
  sleep 2.5 & tensafe_fetch_progress \$! '$root/.tensafe/run/no-such-folder-$$' 170 1; echo survived"
check "the Keycloak fetch's progress loop goes on while its folder does not exist yet" \
  bash -c "[ $(rc) = 0 ] && grep -q '^survived$' '$out' && grep -q '\.\.\. 0 of about 170 MB' '$err'"

# `up` end to end, on ports and a database that a developer's own `up` does not use, emptied first.
export TENSAFE_MARKETPLACE_PORT=18080 TENSAFE_NODE_PORT=18090 TENSAFE_DB_NAME=tensafe_cli
export TENSAFE_DATA_DIR="$root/.tensafe/run/cli-test-data"
mkdir -p "$TENSAFE_DATA_DIR/demo" && touch "$TENSAFE_DATA_DIR/demo/stale"
run "$tensafe" db --reset
check "db --reset recreates the database empty and removes its data" \
  bash -c "[ $(rc) = 0 ] && grep -q 'tensafe_cli' '$out' && [ ! -e '$TENSAFE_DATA_DIR' ]"
run "$tensafe" up --detach
check "up --detach starts everything and prints the URLs" \
  bash -c "[ $(rc) = 0 ] && grep -q 'http://127.0.0.1:18080/' '$out' && grep -q 'http://127.0.0.1:18090/q/health' '$out'"
check "marketplace is UP against PostgreSQL" \
  bash -c "curl -fs http://127.0.0.1:18080/q/health | grep -q '\"Database schema\"'"
check "node is UP" curl -fs -o /dev/null http://127.0.0.1:18090/q/health
check "the node serves only its marketplace (401 problem+json without its dispatch token)" bash -c \
  "curl -s -H 'content-type: application/json' -d '{\"prompt\":\"Hello\",\"max_tokens\":3}' \
     -w '%{http_code}' http://127.0.0.1:18090/v1/generate | grep -q 'dispatch token.*401$'"
check "up publishes the demo adapter and prints an API key" \
  bash -c "grep -q '^OPENAI_BASE_URL=http://127.0.0.1:18080/v1$' '$out' && grep -q '^OPENAI_API_KEY=tsk_' '$out'"
demo_key=$(sed -n 's/^OPENAI_API_KEY=//p' "$out")
# The first request after `up`, exactly as it printed it, is served: `up` returns only once a
# completion through the printed key would be.
sample_curl=$(mktemp)
sed -n '/^    set -a; \. /,/max_tokens/p' "$out" | sed '$s/$/ -o \/dev\/null -w "%{http_code}"/' >"$sample_curl"
check "up said it served a first completion, and the sample curl it printed answers 200 at once" \
  bash -c "grep -q 'a first completion through this key was served' '$err' && [ \"\$(bash '$sample_curl')\" = 200 ]"
rm -f "$sample_curl"
check "a metered chat completion goes through the marketplace to the node and is billed" bash -c \
  "curl -fs http://127.0.0.1:18080/v1/chat/completions -H 'Authorization: Bearer $demo_key' \
     -H 'content-type: application/json' \
     -d '{\"model\":\"auto\",\"messages\":[{\"role\":\"user\",\"content\":\"How do I apply for a mortgage?\"}],\"max_tokens\":4}' \
     | grep -q '\"adapter\":\"demo-banking\".*\"amount_micros\":[1-9]'"
seeded='{"model":"demo-banking","messages":[{"role":"user","content":"How do I apply for a mortgage?"}],"max_tokens":24,"temperature":0,"seed":7}'
first=$(curl -fs http://127.0.0.1:18080/v1/chat/completions -H "Authorization: Bearer $demo_key" \
  -H 'content-type: application/json' -d "$seeded" | sed -n 's/.*"content":"\([^"]*\)".*/\1/p')
second=$(curl -fs http://127.0.0.1:18080/v1/chat/completions -H "Authorization: Bearer $demo_key" \
  -H 'content-type: application/json' -d "$seeded" | sed -n 's/.*"content":"\([^"]*\)".*/\1/p')
check "the demo adapter's hosted answer at temperature 0 with a seed repeats exactly (no DP noise, ADR 0035)" \
  bash -c "[ -n '${first//\'/}' ] && [ '${first//\'/}' = '${second//\'/}' ]"
check "/v1/models shows the demo adapter's signed measured effect and private-mode quota" bash -c \
  "curl -fs http://127.0.0.1:18080/v1/models -H 'Authorization: Bearer $demo_key' \
     | grep -q '\"measured_effect\":{[^}]*\"greedy_agreement\"'"
# The official openai npm client (pinned in .tensafe/test/openai/package-lock.json), as a customer.
run bash -c "cd '$root/.tensafe/test/openai' && { npm ci --no-audit --no-fund --silent || npm ci --no-audit --no-fund; }"
check "npm ci installs the pinned openai client" bash -c "[ $(rc) = 0 ] && [ -d '$root/.tensafe/test/openai/node_modules/openai' ]"
run env OPENAI_BASE_URL=http://127.0.0.1:18080/v1 OPENAI_API_KEY="$demo_key" \
  node "$root/.tensafe/test/openai/client-test.mjs"
check "the official openai client lists, completes, streams with usage and sees errors" \
  bash -c "[ $(rc) = 0 ] && grep -q 'openai client test: ok' '$out'"
# Private mode: `./tensafe client` runs the demo model here and the adapter under its own key,
# through the marketplace; the official openai client talks to it unmodified.
client_log=$(mktemp)
# Its fleet pins (ADR 0037) in a fresh file: the demo fleet's key is pinned on first use.
known_fleets="$(mktemp -d)/known_fleets.json"
TENSAFE_KNOWN_FLEETS="$known_fleets" "$tensafe" client --marketplace http://127.0.0.1:18080 \
  --api-key "$demo_key" --model-dir "$root/.tensafe/run/models/demo" >"$client_log" 2>&1 &
client_pid=$!
# It prints OPENAI_BASE_URL, then OPENAI_API_KEY (the only key its endpoint takes), in one write.
for _ in $(seq 1 240); do
  grep -q '^OPENAI_API_KEY=' "$client_log" && break
  kill -0 "$client_pid" 2>/dev/null || break
  sleep 0.5
done
client_url=$(sed -n 's/^OPENAI_BASE_URL=//p' "$client_log")
client_key=$(sed -n 's/^OPENAI_API_KEY=//p' "$client_log")
check "client prints OPENAI_BASE_URL and its own OPENAI_API_KEY on lines of their own" \
  bash -c "grep -qE '^OPENAI_BASE_URL=http://127.0.0.1:[0-9]+/v1$' '$client_log' \
    && grep -qE '^OPENAI_API_KEY=tsc_[A-Za-z0-9_-]{43}$' '$client_log'"
check "client's endpoint refuses another key with 401 invalid_api_key, as OpenAI does" bash -c \
  "curl -s -H 'Authorization: Bearer $demo_key' -w '%{http_code}' '$client_url/models' \
     | grep -q '\"code\":\"invalid_api_key\".*401$'"
run env OPENAI_BASE_URL="$client_url" OPENAI_API_KEY="$client_key" \
  node "$root/.tensafe/test/openai/private-client-test.mjs"
check "the official openai client against ./tensafe client: private completions, billed from frames" \
  bash -c "[ $(rc) = 0 ] && grep -q 'private client test: ok' '$out'"
check "the client pinned the demo fleet's key on first use" \
  bash -c "grep -qE '\"[a-z0-9._-]+\" : \"[0-9a-f]{32}\"' '$known_fleets'"
kill "$client_pid" 2>/dev/null
wait "$client_pid" 2>/dev/null
check "client stops when its process is signalled (no JVM left behind)" \
  bash -c "! pgrep -f '[C]lientCommand --marketplace http://127.0.0.1:18080' >/dev/null"
rm -f "$client_log"
# Faults: the node, then the marketplace, killed mid-stream (see the file).
. "$root/.tensafe/test/fault-drills.sh"
# Billing reports of what those calls charged, through the CLI, signed in as the demo users.
run env TENSAFE_PASSWORD=client "$tensafe" report invoice --format csv
check "report invoice --format csv lists the demo adapter and a total" \
  bash -c "[ $(rc) = 0 ] && grep -q '^adapter,demo-banking@1.2.0,USD,[1-9]' '$out' && grep -q '^total,,USD,[1-9]' '$out'"
report_dir=$(mktemp -d)
run env TENSAFE_PASSWORD=admin "$tensafe" report revenue --format pdf --out "$report_dir/revenue.pdf"
check "report revenue --format pdf writes a PDF" \
  bash -c "[ $(rc) = 0 ] && head -c 5 '$report_dir/revenue.pdf' | grep -q '%PDF-' && grep -q 'wrote the revenue report' '$err'"
rm -rf "$report_dir"
run env TENSAFE_PASSWORD=wrong "$tensafe" report payout
check "report with a wrong password exits 1 with one line" eval "[ $(rc) = 1 ] && one_line_error 'signing in as creator failed'"
run env TENSAFE_PASSWORD=client "$tensafe" report invoice --from 2026-13-01
check "report with a bad date says why in one line" eval "[ $(rc) = 1 ] && one_line_error 'from must be an ISO-8601'"
pom="$root/marketplace-api/pom.xml"
pom_mtime=$(stat -c %Y "$pom")
touch "$pom" # make the build look stale
run "$tensafe" up --detach
touch -d "@$pom_mtime" "$pom"
check "a second up is harmless" bash -c "[ $(rc) = 0 ] && grep -q 'already running' '$err'"
check "a second up does not rebuild under running services" grep -q "running on the previous build" "$err"
check "a second up reuses the demo's API key and publishes nothing again" \
  bash -c "grep -q '^OPENAI_API_KEY=$demo_key\$' '$out' && grep -q 'nothing to seed' '$err' && ! grep -q 'publishing the demo adapter' '$err'"
check "up prints the sample curl after saying how to load demo.env" \
  bash -c "[ \$(grep -n 'set -a;' '$out' | cut -d: -f1) -lt \$(grep -n 'curl -s' '$out' | cut -d: -f1) ]"
check "up's output carries no Vector API warning" bash -c "! grep -q 'Using incubator modules' '$out' '$err'"
run "$tensafe" db --reset
check "db --reset refuses while the services run" eval "[ $(rc) = 1 ] && one_line_error 'down first'"
run "$tensafe" down
check "down stops both services" \
  bash -c "[ $(rc) = 0 ] && ! curl -fs -o /dev/null http://127.0.0.1:18080/q/health && ! curl -fs -o /dev/null http://127.0.0.1:18090/q/health"

# Foreground `up` stops what it started when signalled (Ctrl-C sends SIGINT to the terminal's
# process group; a background job here can only be sent SIGTERM, which takes the same path).
"$tensafe" up >"$out" 2>"$err" &
up_pid=$!
for _ in $(seq 1 240); do
  grep -q 'Press Ctrl-C to stop' "$out" && break
  sleep 0.5
done
kill -TERM "$up_pid" 2>/dev/null
wait "$up_pid" 2>/dev/null
check "up after down starts again on the same data, then stops its services when signalled" \
  bash -c "grep -q 'Press Ctrl-C to stop' '$out' && grep -q '^OPENAI_API_KEY=tsk_' '$out' && grep -q 'stopped marketplace' '$err' && grep -q 'stopped node' '$err' && ! curl -fs -o /dev/null http://127.0.0.1:18080/q/health"

# OCI images: built by Maven with Jib on a base made here from Debian's packages and a jlinked
# Java 25, each started from its own unpacked layers (no container runtime works on this machine).
run "$tensafe" images
check "images builds both OCI tarballs, and each starts as its unprivileged user" bash -c \
  "[ $(rc) = 0 ] && grep -q 'marketplace-api-image.tar: started as user 10001, live' '$out' \
   && grep -q 'inference-node-image.tar: started as user 10001, live' '$out'"

# Scale-out: two replicas behind HAProxy and two nodes, through faults (see the file).
. "$root/.tensafe/test/cluster-drills.sh"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
