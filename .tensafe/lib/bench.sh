# `./tensafe bench`: the kernels' JMH and readable benchmarks, the tgsp, catalogue and gateway
# benchmarks, and the node's decode benchmark. Source common.sh, jdk.sh and build.sh first.

help_bench() {
  cat <<'TXT'
  bench [WHAT]    Benchmarks. With no argument, a short JMH run of every kernels benchmark.
                  `bench ntt [--log-n 14] [--backend cpu|cuda] [--batch 1,64,1024] [--json]`
                  times the NTT (one limb, or limb-NTTs/s per batch size); `bench he-lora
                  [--backend cpu|cuda] [--batch 1,64,512] [--sites K] ...` the HE-LoRA
                  operator; `bench tgsp [--size-mb 256] [--json]` package pack/verify/open
                  throughput; `bench catalog [--json]` catalogue search p50/p99 and upload MB/s;
                  `bench gateway [--concurrency 1,16,64] [--token-ms 20] [--json]` requests/s and
                  the latency the metered gateway adds to the first token (p50, p99);
                  `bench node [--model tiny|qwen2.5-1.5b-shape] [--adapter-rank 32] [--json]`
                  decode ms/token: base, plaintext LoRA and HE-LoRA in one run
                  (`--widen-weights`: BF16 weights held as F32); `bench node --matrices
                  [--matrix-tokens 1,6,64] [--seconds S]` ms per product of each layer matrix:
                  F32, the old widened F16, the BF16 kernel and the memory roofline;
                  `bench node --anchors [--prefill-tokens 128] [--tokens 8] [--json]` decode and
                  prefill tokens/s held BF16 and F32, beside PyTorch eager on the same folder
                  (Debian's python3-torch; "torch":"absent" without it) and the memory roofline;
                  `bench private [--model tiny|qwen2.5-1.5b-shape|qwen3-30b-a3b-shape]
                  [--layers K] [--adapter-rank 32] [--attention-only] [--json]`
                  private mode's ms/token (client base model, HE rounds, relay), round trips and
                  bytes per token, per layer and at the shape's depth, beside hosted HE-LoRA in
                  the same run (on the MoE shape every expert's gate, up and down are adapted);
                  `bench memory [DIR] [--layers 28] [--dtype bf16|f16|f32] [--tokens 8]`
                  the resident memory (RSS, peak, Java heap, direct buffers) of a loaded
                  model of Qwen2.5-1.5B's shape, written to DIR first if DIR is empty;
                  `bench utility [--model-dir DIR] [--noise-multipliers 0,0.1,1] [--clip-norm C]
                  [--modes plaintext,hosted,private] [--json]` per DP policy and mode, the
                  adapter's effect retained (greedy agreement, KL ratio) and the tokens an
                  organisation can run per period (default: the demo model and its adapter);
                  `bench json-gaps [--model-dir DIR] [--tokens 24] [--json]` the gaps between
                  a JSON-mode private completion's decode steps, for two prompts, with the JSON
                  mask computed during the exchange and between steps (ADR 0037);
                  `bench jmh ARGS` passes ARGS to JMH; `bench --help` lists them.
TXT
}

# bench_on_demo_model CLASS [ARGS]: a node tool's benchmark on --model-dir, the demo model (built
# once) when ARGS name none.
bench_on_demo_model() {
  local class=$1
  shift
  tensafe_package_node_tools
  local args=("$@")
  if [[ " $* " != *" --model-dir "* ]]; then
    ensure_demo_model
    args=(--model-dir "$TENSAFE_NODE_MODEL_DIR" "$@")
  fi
  tensafe_node_tool "$class" "${args[@]}"
}

cmd_bench() {
  tensafe_use_jdk
  case ${1:-} in
    tgsp) shift; cmd_tgsp bench "$@"; return ;;
    catalog) shift; bench_catalog "$@"; return ;;
    gateway) shift; bench_gateway "$@"; return ;;
    node)
      shift
      tensafe_package_node_tools
      # The qwen2.5-1.5b shape holds its weights twice while loading (Java, then PyTorch): 60% of RAM.
      tensafe_node_tool -XX:MaxRAMPercentage=60 io.tensafe.node.tools.bench.NodeBenchCommand "$@"
      return ;;
    memory)
      shift
      tensafe_package_node_tools
      local dir=${1:-$TENSAFE_ROOT/target/bench-memory-model}
      [ $# -gt 0 ] && shift
      # A fresh JVM per run: the tools' ResidentMemoryBench.
      tensafe_node_tool -XX:MaxRAMPercentage=60 io.tensafe.node.tools.bench.ResidentMemoryBench "$dir" "$@"
      return ;;
    utility)
      shift
      bench_on_demo_model io.tensafe.node.tools.utility.UtilityBenchCommand "$@"
      return ;;
    json-gaps)
      shift
      bench_on_demo_model io.tensafe.node.tools.utility.JsonGapsBenchCommand "$@"
      return ;;
    private)
      shift
      tensafe_package_node_tools
      tensafe_node_tool -XX:MaxRAMPercentage=60 io.tensafe.node.tools.bench.PrivateBenchCommand "$@"
      return ;;
  esac
  tensafe_say "building the benchmark jar ..."
  tensafe_package -Pbench -pl kernels/kernels-bench -am
  local jar="$TENSAFE_ROOT/kernels/kernels-bench/target/benchmarks.jar"
  local java=("$JAVA_HOME/bin/java" "${TENSAFE_JVM_OPTIONS[@]}")
  case ${1:-} in
    "")
      mkdir -p "$TENSAFE_ROOT/kernels/kernels-bench/target/jmh"
      tensafe_say "short JMH run of every benchmark: 1 fork, 3x1s warm-up, 5x1s measurement; JSON in kernels/kernels-bench/target/jmh/results.json"
      "${java[@]}" -jar "$jar" -f 1 -wi 3 -w 1s -i 5 -r 1s -rf json \
        -rff "$TENSAFE_ROOT/kernels/kernels-bench/target/jmh/results.json"
      ;;
    jmh) shift; "${java[@]}" -jar "$jar" "$@" ;;
    *) "${java[@]}" -cp "$jar" io.tensafe.kernels.bench.BenchCommand "$@" ;;
  esac
}

# Catalogue search p50/p99 over 10,000 published adapters and one ~200 MB upload, measured by
# marketplace-api's CatalogBenchmark through the real HTTP stack and PostgreSQL.
bench_catalog() {
  local json=false arg
  for arg in "$@"; do
    case $arg in
      --json) json=true ;;
      -h | --help) echo "Usage: ./tensafe bench catalog [--json]"; return 0 ;;
      *) tensafe_die "unknown option for bench catalog: '$arg'" ;;
    esac
  done
  tensafe_say "seeding 10,000 adapters and timing catalogue search and a 200 MB upload (a few minutes) ..."
  bench_marketplace CatalogBenchmark "$json"
}

# Requests/s and the latency the gateway adds to a stream's first token, per concurrency level,
# measured by marketplace-api's GatewayBenchmark (real HTTP, PostgreSQL ledgers, an in-JVM node).
bench_gateway() {
  local json=false levels=1,16,64 seconds=10 token_ms=20
  while [ $# -gt 0 ]; do
    case $1 in
      --json) json=true ;;
      --concurrency) levels=${2:?--concurrency needs a list such as 1,16,64}; shift ;;
      --seconds) seconds=${2:?--seconds needs a number}; shift ;;
      --token-ms) token_ms=${2:?--token-ms needs a number}; shift ;;
      -h | --help)
        cat <<'USAGE'
Usage: ./tensafe bench gateway [--concurrency 1,16,64] [--seconds 10] [--token-ms 20] [--json]
Streams chat completions through the metered gateway (API key, ledgers in PostgreSQL, DP budget,
proxy to a node in the same JVM) with N closed-loop clients per level, for --seconds each. The
node sends 16 tokens --token-ms apart (0: at once, to find the gateway's saturation throughput).
Reports requests/s and the latency the gateway adds to the first token (p50, p99): the client's
time to its first content byte minus the node's own time to its first byte; and the same asked of
the node directly (direct_to_node_*), the benchmark harness's own share. In the same run, per
level: the same server relaying the node's stream with no metering (pass_through_*; the gateway
minus it is metering_added_p50_ms and metering_added_p99_ms), and the gateway with each replica's
own in-memory limits instead of the shared ones (instance_limits_*; shared_over_instance_requests
is the requests/s ratio). A second line per level: the marketplace's CPU per request
(marketplace_cpu_us_per_request, its own threads' CPU clocks; pass_through_cpu_us_per_request,
the same server relaying with no metering), the database round trips per
request (db_round_trips_per_request, the driver's Sync messages) and the run queue
(run_queue_mean, run_queue_max: runnable tasks from /proc/loadavg) beside the machine's cpus.
USAGE
        return 0 ;;
      *) tensafe_die "unknown option for bench gateway: '$1'" ;;
    esac
    shift
  done
  [[ $levels =~ ^[0-9]+(,[0-9]+)*$ ]] || tensafe_die "--concurrency must be a list of numbers, e.g. 1,16,64"
  [[ $seconds =~ ^[1-9][0-9]*$ ]] || tensafe_die "--seconds must be a positive whole number"
  [[ $token_ms =~ ^[0-9]+$ ]] || tensafe_die "--token-ms must be a whole number of milliseconds"
  tensafe_say "timing the gateway at concurrency $levels, $seconds s each (about a minute to build and start) ..."
  bench_marketplace GatewayBenchmark "$json" \
    -Dtensafe.bench.concurrency="$levels" -Dtensafe.bench.seconds="$seconds" \
    -Dtensafe.bench.token-ms="$token_ms"
}

# bench_marketplace TEST JSON [MAVEN ARGS]: runs marketplace-api's benchmark TEST (a @QuarkusTest
# enabled by -Dtensafe.bench=true) and prints its BENCH lines, as JSON or as readable lines.
bench_marketplace() {
  local test=$1 json=$2
  shift 2
  tensafe_ensure_postgres
  local log
  log=$(mktemp)
  "$TENSAFE_ROOT/mvnw" -f "$TENSAFE_ROOT/pom.xml" -pl marketplace-api -am test -Dspotless.check.skip=true \
    -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false -Dtensafe.bench=true "$@" >"$log" 2>&1 \
    || { tail -n 30 "$log" >&2; tensafe_die "the benchmark failed; full log: $log"; }
  local lines
  lines=$(grep -o 'BENCH {.*}' "$log" | sed 's/^BENCH //') || lines=""
  [ -n "$lines" ] || tensafe_die "the benchmark printed no result; full log: $log"
  rm -f "$log"
  if [ "$json" = true ]; then
    printf '%s\n' "$lines"
  else
    printf '%s\n' "$lines" | while IFS= read -r line; do
      printf '%s\n' "$line" | tr ',' '\n' | tr -d '{}"' | sed 's/:/: /'
      echo
    done
  fi
}
