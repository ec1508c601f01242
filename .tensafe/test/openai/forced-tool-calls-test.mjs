// The official `openai` npm client forcing tool calls (issue 54): tool_choice "required" and a
// named function, whole and streamed, with parallel_tool_calls false, against a marketplace whose
// node decodes under the forced-call grammar (marketplace-api's ForcedToolCallsTest).
// Reads OPENAI_BASE_URL, OPENAI_API_KEY and TENSAFE_MODEL; exits non-zero on the first failure.
import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });
const model = process.env.TENSAFE_MODEL;
const fail = (message) => {
  console.error(`forced tool calls test: ${message}`);
  process.exit(1);
};
const weather = {
  type: "object",
  properties: { city: { type: "string" }, unit: { enum: ["C", "F"] }, days: { type: "integer" } },
  required: ["city", "unit"],
  additionalProperties: false,
};
const time = {
  type: "object",
  properties: { utc: { type: "boolean" } },
  required: ["utc"],
  additionalProperties: false,
};
const tools = [
  { type: "function", function: { name: "get_weather", description: "Weather now", parameters: weather } },
  { type: "function", function: { name: "get_time", description: "Time now", parameters: time } },
];
const question = { role: "user", content: "Weather in Paris?" };

// The arguments parse and match the tool's schema: its required keys, only its keys, their types.
const matches = (call) => {
  const schema = call.function.name === "get_weather" ? weather : call.function.name === "get_time" ? time : null;
  if (!schema) return false;
  const args = JSON.parse(call.function.arguments);
  if (typeof args !== "object" || args === null || Array.isArray(args)) return false;
  if (!schema.required.every((k) => k in args)) return false;
  return Object.entries(args).every(([k, v]) => {
    const s = schema.properties[k];
    if (!s) return false;
    if (s.enum) return s.enum.includes(v);
    if (s.type === "string") return typeof v === "string";
    if (s.type === "integer") return Number.isInteger(v);
    if (s.type === "boolean") return typeof v === "boolean";
    return false;
  });
};
const calls = (message, where) => {
  if (!message.tool_calls?.length) fail(`${where}: no tool_calls: ${JSON.stringify(message)}`);
  for (const c of message.tool_calls) {
    if (c.type !== "function" || !c.id?.startsWith("call_") || !matches(c)) {
      fail(`${where}: a call off its schema: ${JSON.stringify(c)}`);
    }
  }
  return message.tool_calls;
};

for (const parallel of [true, false]) {
  const whole = await client.chat.completions.create({
    model, messages: [question], tools, tool_choice: "required", parallel_tool_calls: parallel, max_tokens: 256,
  });
  if (whole.choices[0].finish_reason !== "tool_calls") fail(`required finish_reason: ${whole.choices[0].finish_reason}`);
  const made = calls(whole.choices[0].message, `required (parallel ${parallel})`);
  if (!parallel && made.length !== 1) fail(`parallel_tool_calls false made ${made.length} calls`);
}

const named = await client.chat.completions.create({
  model, messages: [question], tools, max_tokens: 256,
  tool_choice: { type: "function", function: { name: "get_time" } },
});
const namedCalls = calls(named.choices[0].message, "named");
if (namedCalls.length !== 1 || namedCalls[0].function.name !== "get_time") fail(`named: ${JSON.stringify(namedCalls)}`);

const stream = client.chat.completions.stream({
  model, messages: [question], tools, max_tokens: 256,
  tool_choice: { type: "function", function: { name: "get_weather" } },
});
const final = await stream.finalChatCompletion();
const streamed = calls(final.choices[0].message, "streamed");
if (streamed.length !== 1 || streamed[0].function.name !== "get_weather") fail(`streamed: ${JSON.stringify(streamed)}`);
if (final.choices[0].finish_reason !== "tool_calls") fail(`streamed finish_reason: ${final.choices[0].finish_reason}`);

try {
  await client.chat.completions.create({
    model, messages: [question], tools, max_tokens: 16,
    tool_choice: { type: "function", function: { name: "get_stock_price" } },
  });
  fail("a function not among tools was accepted");
} catch (e) {
  if (!(e instanceof OpenAI.BadRequestError) || e.param !== "tool_choice") fail(`not a 400 naming tool_choice: ${e}`);
}
console.log("forced tool calls test: ok");
