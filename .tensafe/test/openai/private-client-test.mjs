// The official `openai` npm client against `./tensafe client` (private mode, ADR 0017): the client
// runtime runs the base model locally and the adapter's deltas under its own CKKS key through the
// marketplace, which bills the frames. Reads OPENAI_BASE_URL (the local endpoint) and
// OPENAI_API_KEY (the key `./tensafe client` printed); exits non-zero with a message on the first
// failure.
import OpenAI from "openai";

const client = new OpenAI();
const fail = (message) => {
  console.error(`private client test: ${message}`);
  process.exit(1);
};

const models = await client.models.list();
if (!models.data.map((m) => m.id).includes("demo-banking")) fail("models: no demo-banking");

// auto is refused in private mode: the adapter it picks depends on the prompt (ADR 0037).
try {
  await client.chat.completions.create({
    model: "auto",
    messages: [{ role: "user", content: "How do I apply for a mortgage?" }],
    max_tokens: 3,
  });
  fail("model auto was accepted in private mode");
} catch (e) {
  if (!(e instanceof OpenAI.BadRequestError) || !e.message.includes("not available in private mode")) fail(`auto: ${e.message}`);
}

const answer = await client.chat.completions.create({
  model: "demo-banking",
  messages: [{ role: "user", content: "How do I apply for a mortgage?" }],
  max_tokens: 3,
});
const t = answer.tensafe;
if (answer.choices[0].message.role !== "assistant") fail("no assistant message");
if (t?.mode !== "private" || t.adapter !== "demo-banking") fail(`tensafe ${JSON.stringify(t)}`);
if (answer.usage.completion_tokens < 1) fail(`usage ${JSON.stringify(answer.usage)}`);
// The marketplace counted the same tokens from the frames it relayed, and billed them; the prompt
// as run, padded to its power-of-two bucket (ADR 0037).
const p = answer.usage.prompt_tokens;
if ((p & (p - 1)) !== 0) fail(`prompt tokens ${p} are not padded to a power of two`);
if (t.billed_usage.prompt_tokens !== answer.usage.prompt_tokens) fail(`billed ${JSON.stringify(t.billed_usage)} vs ${JSON.stringify(answer.usage)}`);
if (t.billed_usage.completion_tokens !== answer.usage.completion_tokens) fail(`billed ${JSON.stringify(t.billed_usage)} vs ${JSON.stringify(answer.usage)}`);
if (!(t.billing.amount_micros > 0) || t.billing.mode !== "private") fail(`billing ${JSON.stringify(t.billing)}`);
if (!(t.frames.round_trips > 0) || !(t.frames.bytes_sent > 0)) fail(`frames ${JSON.stringify(t.frames)}`);

const stream = await client.chat.completions.create({
  model: "demo-banking",
  messages: [{ role: "user", content: "Hello" }],
  max_tokens: 2,
  stream: true,
  stream_options: { include_usage: true },
});
let usage = null;
let finish = null;
for await (const chunk of stream) {
  if (chunk.choices.length > 0 && chunk.choices[0].finish_reason) finish = chunk.choices[0].finish_reason;
  if (chunk.usage) usage = chunk.usage;
}
if (!usage || usage.completion_tokens < 1 || !finish) fail(`stream usage ${JSON.stringify(usage)} finish ${finish}`);

try {
  await client.chat.completions.create({
    model: "no-such-adapter",
    messages: [{ role: "user", content: "hi" }],
    max_tokens: 2,
  });
  fail("an unknown model was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.NotFoundError)) fail(`unknown model: ${e.message}`);
}
console.log("private client test: ok");
