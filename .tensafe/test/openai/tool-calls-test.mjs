// The official `openai` npm client reading tool calls (issue 36), against a marketplace whose node's
// output the calling test fixes (marketplace-api's OpenAiNpmToolCallsTest): the node answers
// "Checking.\n" then one <tool_call> block for get_weather(city: "Paris"), split across tokens.
// Reads OPENAI_BASE_URL, OPENAI_API_KEY and TENSAFE_MODEL; exits non-zero on the first failure.
import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });
const model = process.env.TENSAFE_MODEL;
const fail = (message) => {
  console.error(`tool calls test: ${message}`);
  process.exit(1);
};
const tools = [
  {
    type: "function",
    function: {
      name: "get_weather",
      description: "Weather now",
      parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
  },
];
const question = { role: "user", content: "Weather in Paris?" };
const isParis = (call) =>
  call?.type === "function" &&
  call.function?.name === "get_weather" &&
  JSON.parse(call.function.arguments).city === "Paris" &&
  call.id?.startsWith("call_");

// Whole.
const whole = await client.chat.completions.create({ model, messages: [question], tools, max_tokens: 64 });
const message = whole.choices[0].message;
if (whole.choices[0].finish_reason !== "tool_calls") fail(`finish_reason: ${whole.choices[0].finish_reason}`);
if (message.tool_calls?.length !== 1 || !isParis(message.tool_calls[0])) fail(`tool_calls: ${JSON.stringify(message)}`);
if (message.content !== "Checking.\n") fail(`content: ${JSON.stringify(message.content)}`);

// Streamed, through the SDK's own accumulation of tool-call deltas.
const stream = client.chat.completions.stream({ model, messages: [question], tools, max_tokens: 64 });
const final = await stream.finalChatCompletion();
const streamed = final.choices[0].message;
if (final.choices[0].finish_reason !== "tool_calls") fail(`streamed finish_reason: ${final.choices[0].finish_reason}`);
if (streamed.tool_calls?.length !== 1 || !isParis(streamed.tool_calls[0])) fail(`streamed tool_calls: ${JSON.stringify(streamed)}`);
if (streamed.content !== "Checking.\n") fail(`streamed content: ${JSON.stringify(streamed.content)}`);

// The result sent back, as an agent loop does: the call and a tool message.
const back = await client.chat.completions.create({
  model,
  messages: [question, message, { role: "tool", tool_call_id: message.tool_calls[0].id, content: "18C" }],
  tools,
  max_tokens: 64,
});
if (!back.choices[0].message) fail(`follow-up: ${JSON.stringify(back)}`);
console.log("tool calls test: ok");
