// The official `openai` npm client against TenSafe's metered API, as a customer would use it.
// Reads OPENAI_BASE_URL and OPENAI_API_KEY; exits non-zero with a message on the first failure.
import OpenAI from "openai";

const client = new OpenAI();
const fail = (message) => {
  console.error(`openai client test: ${message}`);
  process.exit(1);
};

const models = await client.models.list();
const ids = models.data.map((m) => m.id);
if (!ids.includes("auto") || !ids.includes("demo-banking")) fail(`models: ${ids}`);
const one = await client.models.retrieve("demo-banking");
if (one.id !== "demo-banking" || one.object !== "model") fail(`model: ${JSON.stringify(one)}`);
// Beside OpenAI's fields (which the client's page object drops): the organisation's auto price cap.
const base = (client.baseURL ?? process.env.OPENAI_BASE_URL).replace(/\/$/, "");
const listed = await (await fetch(`${base}/models`, { headers: { Authorization: `Bearer ${process.env.OPENAI_API_KEY}` } })).json();
if (!(listed.tensafe?.auto_price_cap?.prompt_micros_per_1k_tokens > 0)) fail(`auto cap: ${JSON.stringify(listed.tensafe)}`);

// Tools as people's code sends them (issue 36): offered, a call and its result sent back. The demo
// model's words are random, so the answer may be text or a call; the prompt billed holds the
// tools' preamble that the model's chat template renders.
const weather = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather now",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const withTools = await client.chat.completions.create({
  model: "demo-banking",
  messages: [
    { role: "user", content: "Weather in Paris?" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: "18C" },
  ],
  tools: [weather],
  max_tokens: 4,
});
if (!["stop", "length", "tool_calls"].includes(withTools.choices[0].finish_reason)) fail(`tools: ${JSON.stringify(withTools.choices[0])}`);
if (!(withTools.usage.prompt_tokens > 80)) fail(`tools prompt tokens: ${withTools.usage.prompt_tokens}`);
// Forced tool calls (issue 54): decoded under the tool-call grammar, so even the demo model's
// random words make a call whose arguments parse against the tool's schema.
const city = {
  type: "function",
  function: {
    name: "pick_city",
    description: "Pick a city",
    parameters: { type: "object", properties: { city: { type: "string", enum: ["Paris", "Rome"] } }, required: ["city"], additionalProperties: false },
  },
};
const callOf = (completion, label) => {
  const calls = completion.choices[0].message.tool_calls;
  if (completion.choices[0].finish_reason !== "tool_calls" || calls?.length !== 1) fail(`${label}: ${JSON.stringify(completion.choices[0])}`);
  const args = JSON.parse(calls[0].function.arguments);
  if (!["Paris", "Rome"].includes(args.city) || Object.keys(args).length !== 1) fail(`${label} arguments: ${calls[0].function.arguments}`);
  return calls[0].function.name;
};
const required = await client.chat.completions.create({ model: "demo-banking", messages: [{ role: "user", content: "Hi" }], tools: [city], tool_choice: "required", parallel_tool_calls: false, max_tokens: 200 });
if (callOf(required, "tool_choice required") !== "pick_city") fail("tool_choice required named another function");
const named = await client.chat.completions.create({ model: "demo-banking", messages: [{ role: "user", content: "Hi" }], tools: [weather, city], tool_choice: { type: "function", function: { name: "pick_city" } }, max_tokens: 200 });
if (callOf(named, "a named tool_choice") !== "pick_city") fail("a named tool_choice called another function");
let unknown = null;
try {
  await client.chat.completions.create({ model: "demo-banking", messages: [{ role: "user", content: "Hi" }], tools: [weather], tool_choice: { type: "function", function: { name: "nope" } }, max_tokens: 2 });
} catch (e) {
  unknown = e;
}
if (unknown?.status !== 400 || unknown?.param !== "tool_choice") fail(`an unknown tool_choice: ${unknown}`);

// What SDKs and frameworks fill in with their no-op defaults is served, not refused.
const defaults = await client.chat.completions.create({
  model: "demo-banking",
  messages: [{ role: "user", content: "Hello" }],
  max_tokens: 2,
  presence_penalty: 0,
  frequency_penalty: 0,
  logprobs: false,
  tools: [],
  response_format: { type: "text" },
  user: "someone",
});
if (defaults.choices[0].message.role !== "assistant") fail("no-op defaults were not served");

const answer = await client.chat.completions.create({
  model: "auto",
  messages: [{ role: "user", content: "How do I apply for a mortgage?" }],
  max_tokens: 5,
});
if (answer.choices[0].message.role !== "assistant") fail("no assistant message");
if (answer.usage.completion_tokens < 1 || answer.usage.total_tokens !== answer.usage.prompt_tokens + answer.usage.completion_tokens) fail(`usage ${JSON.stringify(answer.usage)}`);
if (answer.tensafe?.adapter !== "demo-banking" || !(answer.tensafe.amount_micros > 0)) fail(`tensafe ${JSON.stringify(answer.tensafe)}`);

const stream = await client.chat.completions.create({
  model: "demo-banking",
  messages: [{ role: "user", content: "Hello" }],
  max_tokens: 4,
  stream: true,
  stream_options: { include_usage: true },
});
let text = "";
let usage = null;
for await (const chunk of stream) {
  if (chunk.choices.length > 0) text += chunk.choices[0].delta?.content ?? "";
  if (chunk.usage) usage = chunk.usage;
}
if (!usage || usage.completion_tokens < 1) fail(`stream usage ${JSON.stringify(usage)}`);
if (text.length === 0) fail("stream delivered no text");

try {
  await client.chat.completions.create({
    model: "demo-banking",
    messages: [{ role: "user", content: "hi" }],
    logit_bias: { "50256": -100 },
  });
  fail("an unsupported parameter was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.BadRequestError) || e.message !== "400 unsupported parameter 'logit_bias' with this value: only its no-op value ({}) is accepted") fail(`error message: ${e.message}`);
  if (e.param !== "logit_bias" || e.type !== "invalid_request_error" || e.code !== "validation") fail(`error fields: ${e.param} ${e.type} ${e.code}`);
}

// Content as an array of text parts, as newer SDKs and LangChain-style clients send it.
const parts = await client.chat.completions.create({
  model: "demo-banking",
  messages: [
    { role: "developer", content: [{ type: "text", text: "Answer briefly." }] },
    { role: "user", content: [{ type: "text", text: "Hello" }, { type: "text", text: "there" }] },
  ],
  max_tokens: 3,
});
if (!(parts.usage.completion_tokens >= 1)) fail(`content parts: ${JSON.stringify(parts.usage)}`);
try {
  await client.chat.completions.create({
    model: "demo-banking",
    messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AA==" } }] }],
  });
  fail("an image part was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.BadRequestError) || !e.message.includes("content part type 'image_url'") || e.param !== "messages[0].content[0].type") fail(`image part: ${e.message} ${e.param}`);
}
try {
  await client.chat.completions.create({ model: "demo-banking", stream: "yes", messages: [{ role: "user", content: "hi" }] });
  fail("stream: 'yes' was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.BadRequestError) || e.param !== "stream") fail(`stream type: ${e.message}`);
}
// A multi-turn chat is routed on its latest user turn.
const turns = await client.chat.completions.create({
  model: "auto",
  messages: [
    { role: "user", content: "Tell me about dividend stocks" },
    { role: "assistant", content: "Sure." },
    { role: "user", content: "And how do I apply for a mortgage?" },
  ],
  max_tokens: 2,
});
if (turns.tensafe?.adapter !== "demo-banking" || !String(turns.tensafe.route_reason).includes("latest user message")) fail(`routing: ${JSON.stringify(turns.tensafe)}`);
try {
  await client.chat.completions.create({ model: "no-such-adapter", messages: [{ role: "user", content: "hi" }] });
  fail("an unknown model was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.NotFoundError) || !e.message.includes("model 'no-such-adapter' does not exist") || e.param !== "model") fail(`error: ${e}`);
}
console.log(`openai client test: ok (${answer.usage.total_tokens} + ${usage.total_tokens} tokens billed)`);
