// Steady load for the scale-out drills (.tensafe/test/cluster-drills.sh): CLIENTS closed-loop
// clients of the official openai npm client stream chat completions through the load balancer
// for SECONDS, each request on its own, with no retries (a failure is recorded, then the client
// goes on). Writes one record per request to OUT (JSON): the request id, when it was accepted and
// when it ended (epoch ms), the content chunks received, the usage of a completed stream, and the error
// of one that was not. A request still unfinished WATCHDOG_MS after it was sent is a hang.
import OpenAI from "openai";
import { writeFileSync } from "node:fs";

const clients = Number(process.env.CLIENTS ?? 8);
const seconds = Number(process.env.SECONDS ?? 40);
const watchdogMs = Number(process.env.WATCHDOG_MS ?? 90000);
const maxTokens = Number(process.env.MAX_TOKENS ?? 24);
const client = new OpenAI({ maxRetries: 0, timeout: watchdogMs });
const end = Date.now() + seconds * 1000;
const records = [];

async function once() {
  const r = { sent: Date.now(), id: null, accepted: null, ended: null, chunks: 0,
              usage: null, done: false, status: null, error: null, hung: false };
  const abort = new AbortController();
  const watchdog = setTimeout(() => { r.hung = true; abort.abort(); }, watchdogMs);
  try {
    const { data: stream, response } = await client.chat.completions
      .create({
        model: "demo-banking",
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: maxTokens,
        messages: [{ role: "user", content: "Tell me about deposit insurance" }],
      }, { signal: abort.signal })
      .withResponse();
    r.id = response.headers.get("x-request-id");
    r.status = response.status;
    r.accepted = Date.now();
    for await (const chunk of stream) {
      if (chunk.choices?.[0]?.delta?.content) r.chunks++;
      if (chunk.usage) r.usage = chunk.usage;
    }
    r.done = true;
  } catch (e) {
    r.status = r.status ?? e.status ?? 0;
    r.error = `${e.constructor?.name}: ${String(e.message).slice(0, 160)}`;
  } finally {
    clearTimeout(watchdog);
    r.ended = Date.now();
    records.push(r);
  }
  return r;
}

await Promise.all(
  Array.from({ length: clients }, async () => {
    while (Date.now() < end) {
      const r = await once();
      if (!r.done) await new Promise((ok) => setTimeout(ok, 100)); // refused or cut: a breath
    }
  }),
);
writeFileSync(process.env.OUT, JSON.stringify(records));
const by = (f) => records.filter(f).length;
console.log(
  `cluster load: ${records.length} requests, ${by((r) => r.done)} completed, ` +
    `${by((r) => r.accepted !== null && !r.done)} cut short, ${by((r) => r.accepted === null)} refused, ` +
    `${by((r) => r.hung)} hung`,
);
