# Fault drills for the metered API, sourced by cli-test.sh while `up` runs on ports
# 18080/18090 with the database tensafe_cli. Uses cli-test's run/check/rc helpers, $tensafe,
# $root and $demo_key. Two drills:
#  1. kill -9 the node mid-stream: the client gets an error event, the gateway bills exactly the
#     tokens it delivered, once; the restarted node serves again and bills nothing twice;
#  2. kill -9 the marketplace under load (three streams): after its restart, every started request
#     is billed once (at its node's report or the next sweep) for what the marketplace relayed.

drill=$(mktemp -d)
run_dir="$root/.tensafe/run"
sql() { PGPASSWORD=tensafe psql -h 127.0.0.1 -U tensafe -d tensafe_cli -tAc "$1"; }

# stream_to FILE MAX_TOKENS: a streamed chat completion of the demo adapter; headers in FILE.h.
# Temperature 2 keeps the trained demo model from ending early: its templated answers stop after
# about a dozen tokens at temperature 1, before a drill could kill anything mid-stream.
stream_to() {
  curl -sN -D "$1.h" http://127.0.0.1:18080/v1/chat/completions \
    -H "Authorization: Bearer $demo_key" -H 'content-type: application/json' \
    -d "{\"model\":\"demo-banking\",\"stream\":true,\"max_tokens\":$2,\"temperature\":2,\"messages\":[{\"role\":\"user\",\"content\":\"Tell me about deposit insurance\"}]}" \
    >"$1" 2>/dev/null
}
# Content chunks with text in FILE (the first chunk carries only the role).
chunks() { grep -c '"content":"[^"]' "$1" 2>/dev/null || true; }
# wait_for_chunks FILE N: up to 60 s until FILE holds N chunks with text.
wait_for_chunks() {
  local i
  for i in $(seq 600); do
    [ "$(chunks "$1")" -ge "$2" ] && return 0
    sleep 0.1
  done
  return 1
}
# kill_hard NAME: SIGKILL the service and wait until it is gone and its port is free.
kill_hard() {
  local pid i
  pid=$(cat "$run_dir/$1.pid")
  kill -9 "$pid"
  for i in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  sleep 1
}
request_id() { sed -n 's/^x-request-id: *\([0-9a-f-]*\).*/\1/Ip' "$1.h"; }

# 1. The node dies mid-stream. The node is frozen (SIGSTOP) once 4 chunks arrived; a stream that
# had already ended by then is let go and tried again, so the kill always lands mid-stream.
for attempt in 1 2 3 4 5 6; do
  stream_to "$drill/node" 200 &
  client=$!
  wait_for_chunks "$drill/node" 4
  kill -STOP "$(cat "$run_dir/node.pid")"
  sleep 0.5
  grep -q 'DONE' "$drill/node" || break
  kill -CONT "$(cat "$run_dir/node.pid")"
  wait "$client"
done
kill_hard node
wait "$client"
rid=$(request_id "$drill/node")
received=$(chunks "$drill/node")
check "a node killed mid-stream: the client gets an error event and no [DONE]" \
  bash -c "grep -q '\"error\"' '$drill/node' && ! grep -q 'DONE' '$drill/node'"
delivered=$(sql "SELECT delivered_completion_tokens FROM gateway_request WHERE request_id = '$rid' AND outcome = 'node_failed'")
run "$tensafe" up --detach
check "up after the node died starts the node again" bash -c "[ $(rc) = 0 ] && grep -q 'marketplace already running' '$err'"
served=false
for i in $(seq 40); do
  if curl -fs http://127.0.0.1:18080/v1/chat/completions -H "Authorization: Bearer $demo_key" \
      -H 'content-type: application/json' \
      -d '{"model":"demo-banking","max_tokens":2,"messages":[{"role":"user","content":"Hi"}]}' \
      | grep -q '"amount_micros":[1-9]'; then
    served=true
    break
  fi
  sleep 1
done
check "the restarted node registers its new dispatch token and serves metered calls" $served
# The killed stream's bill counts the text that arrived as the model's tokenizer reads it (ADR
# 0026), which at temperature 2 may be fewer tokens than the chunks that carried it (adjacent pieces
# merge). The marketplace's own count of that text is the prompt_tokens of a completion with it as
# the raw prompt, asked now that a node serves again.
arrived_tokens=$(curl -fs http://127.0.0.1:18080/v1/completions -H "Authorization: Bearer $demo_key" \
  -H 'content-type: application/json' -d "$(python3 -c '
import json, sys
text = ""
for line in open(sys.argv[1], encoding="utf-8"):
    if line.startswith("data: {"):
        for c in json.loads(line[6:]).get("choices", []):
            text += (c.get("delta") or {}).get("content") or ""
print(json.dumps({"model": "demo-banking", "prompt": text, "max_tokens": 1}))' "$drill/node")" \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["usage"]["prompt_tokens"])')
check "the stream cut by the killed node is billed once, for exactly the tokens delivered ($received chunks, $arrived_tokens tokens)" bash -c \
  "[ -n '$delivered' ] && [ '$delivered' = '$arrived_tokens' ] && [ '$received' -ge 4 ] \
   && [ \"\$(PGPASSWORD=tensafe psql -h 127.0.0.1 -U tensafe -d tensafe_cli -tAc \
        \"SELECT count(*) || ':' || sum(completion_tokens) FROM charge WHERE request_id = '$rid'\")\" = '1:$delivered' ]"
for i in $(seq 30); do
  curl -fs http://127.0.0.1:18090/metrics | grep -q '^tensafe_node_usage_reports_waiting 0' && break
  sleep 1
done
check "the restarted node flushes its outbox, and nothing is billed twice" bash -c \
  "curl -fs http://127.0.0.1:18090/metrics | grep -q '^tensafe_node_usage_reports_waiting 0' \
   && [ \"\$(PGPASSWORD=tensafe psql -h 127.0.0.1 -U tensafe -d tensafe_cli -tAc \
        \"SELECT count(*) FROM charge WHERE request_id = '$rid'\")\" = 1 ]"

# 2. The marketplace dies under load. As in drill 1, the node is frozen once each of the three
# streams has 2 chunks; if one had already ended (at temperature 2 the model still samples its end
# now and then), all three are let go and tried again, so the kill always lands mid-stream.
for attempt in 1 2 3 4 5 6; do
  clients=()
  for i in 1 2 3; do
    rm -f "$drill/m$i" "$drill/m$i.h"
    stream_to "$drill/m$i" 120 &
    clients+=($!)
  done
  for i in 1 2 3; do wait_for_chunks "$drill/m$i" 2; done
  kill -STOP "$(cat "$run_dir/node.pid")"
  sleep 0.5
  ! grep -q 'DONE' "$drill/m1" "$drill/m2" "$drill/m3" && break
  kill -CONT "$(cat "$run_dir/node.pid")"
  wait "${clients[@]}"
done
kill_hard marketplace
kill -CONT "$(cat "$run_dir/node.pid")"
wait "${clients[@]}"
run "$tensafe" up --detach
check "up after the marketplace died starts it again" bash -c "[ $(rc) = 0 ] && grep -q 'node already running' '$err'"
ids=$(for i in 1 2 3; do printf "'%s'," "$(request_id "$drill/m$i")"; done)
ids=${ids%,}
# The restarted marketplace takes the streams its previous life had open for lost at once (same
# replica name); each is billed once, when the node's report arrives (its delivery backs off while
# the marketplace is down, up to a minute between tries) or at the next sweep, for the prompt and
# the completion tokens that previous life recorded as relayed, never the node's claim (ADR 0026).
billed=""
for i in $(seq 120); do
  billed=$(sql "SELECT count(*) FROM charge c JOIN gateway_request g ON g.request_id::text = c.request_id
                WHERE c.request_id IN ($ids) AND g.outcome = 'gateway_lost'
                AND c.completion_tokens = g.relayed_completion_tokens
                AND c.prompt_tokens = g.prompt_tokens")
  [ "$billed" = 3 ] && break
  sleep 1
done
# What a failure shows: each stream's record, charge and DP events.
sql "SELECT g.request_id, g.outcome, g.prompt_tokens, g.relayed_completion_tokens,
            c.prompt_tokens, c.completion_tokens,
            (SELECT string_agg(kind, '+') FROM dp_budget_event e WHERE e.request_id = g.request_id::text)
     FROM gateway_request g LEFT JOIN charge c ON c.request_id = g.request_id::text
     WHERE g.request_id::text IN ($ids)" >"$out" 2>&1
check "a marketplace killed under load: after its restart all 3 streams are billed once each, for what was relayed" \
  bash -c "[ '$billed' = 3 ] && [ \"\$(PGPASSWORD=tensafe psql -h 127.0.0.1 -U tensafe -d tensafe_cli -tAc \
    \"SELECT count(*) FROM charge WHERE request_id IN ($ids)\")\" = 3 ] \
    && [ \"\$(PGPASSWORD=tensafe psql -h 127.0.0.1 -U tensafe -d tensafe_cli -tAc \
    \"SELECT count(*) FROM dp_budget_event WHERE request_id IN ($ids) AND kind IN ('settle', 'bound')\")\" = 3 ]"
rm -rf "$drill"
