// The official `openai` npm client asking for several choices and for log-probabilities (issue 54,
// ADR 0044): n: 3 whole and streamed, logprobs with top_logprobs: 5 whole and streamed, and the
// 400s naming n and top_logprobs, against a marketplace (marketplace-api's ChoicesAndLogprobsTest).
// Reads OPENAI_BASE_URL, OPENAI_API_KEY and TENSAFE_MODEL; exits non-zero on the first failure.
import OpenAI from "openai";

const client = new OpenAI({ maxRetries: 0 });
const model = process.env.TENSAFE_MODEL;
const fail = (message) => {
  console.error(`choices and logprobs test: ${message}`);
  process.exit(1);
};
const messages = [{ role: "user", content: "What is a savings account?" }];

// n: 3, whole: three choices, indices 0..2, each with content, usage over all of them.
const three = await client.chat.completions.create({ model, messages, n: 3, max_tokens: 16 });
const indices = three.choices.map((c) => c.index);
if (JSON.stringify(indices) !== "[0,1,2]") fail(`n 3 indices: ${JSON.stringify(indices)}`);
for (const c of three.choices) {
  if (typeof c.message.content !== "string" || c.message.content.length === 0) fail(`empty choice ${c.index}`);
  if (!["stop", "length"].includes(c.finish_reason)) fail(`choice ${c.index} finish_reason ${c.finish_reason}`);
}
const one = await client.chat.completions.create({ model, messages, max_tokens: 16 });
if (!(three.usage.completion_tokens >= 3) || three.usage.prompt_tokens !== one.usage.prompt_tokens) {
  fail(`n 3 usage ${JSON.stringify(three.usage)} against one choice's ${JSON.stringify(one.usage)}`);
}

// n: 3, streamed: the stream carries all three choices, each ending, and usage for all.
const stream = await client.chat.completions.create({
  model, messages, n: 3, max_tokens: 16, stream: true, stream_options: { include_usage: true },
});
const texts = ["", "", ""];
const ended = new Set();
let usage = null;
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    if (c.index < 0 || c.index > 2) fail(`streamed index ${c.index}`);
    texts[c.index] += c.delta?.content ?? "";
    if (c.finish_reason) ended.add(c.index);
  }
}
if (ended.size !== 3 || texts.some((t) => t.length === 0)) fail(`streamed choices: ${JSON.stringify(texts)}, ended ${[...ended]}`);
if (!usage || usage.completion_tokens < 3) fail(`streamed usage ${JSON.stringify(usage)}`);

// logprobs with top_logprobs 5: five alternatives a token, probabilities summing to at most 1,
// bytes the token's UTF-8, and the chosen tokens spelling the content.
const checkEntries = (content, text, where) => {
  if (!Array.isArray(content) || content.length === 0) fail(`${where}: no logprobs.content`);
  for (const e of content) {
    if (typeof e.token !== "string" || !(e.logprob <= 0)) fail(`${where}: entry ${JSON.stringify(e)}`);
    if (JSON.stringify(e.bytes) !== JSON.stringify([...Buffer.from(e.token, "utf8")])) fail(`${where}: bytes of ${JSON.stringify(e)}`);
    if (e.top_logprobs.length !== 5) fail(`${where}: ${e.top_logprobs.length} alternatives`);
    const sum = e.top_logprobs.reduce((s, a) => s + Math.exp(a.logprob), 0);
    if (sum > 1 + 1e-9) fail(`${where}: alternatives sum to ${sum}`);
    for (let i = 1; i < 5; i++) {
      if (e.top_logprobs[i].logprob > e.top_logprobs[i - 1].logprob) fail(`${where}: alternatives not sorted`);
    }
  }
  const spelled = content.map((e) => e.token).join("");
  if (spelled !== text) fail(`${where}: tokens spell ${JSON.stringify(spelled)}, content is ${JSON.stringify(text)}`);
};
const withLogprobs = await client.chat.completions.create({ model, messages, max_tokens: 16, logprobs: true, top_logprobs: 5 });
checkEntries(withLogprobs.choices[0].logprobs?.content, withLogprobs.choices[0].message.content, "whole");

const streamedLogprobs = await client.chat.completions.create({
  model, messages, max_tokens: 16, logprobs: true, top_logprobs: 5, stream: true,
});
let streamedText = "";
const streamedEntries = [];
for await (const chunk of streamedLogprobs) {
  for (const c of chunk.choices) {
    streamedText += c.delta?.content ?? "";
    streamedEntries.push(...(c.logprobs?.content ?? []));
  }
}
checkEntries(streamedEntries, streamedText, "streamed");

// Refused by name.
for (const [body, param] of [[{ n: 9 }, "n"], [{ top_logprobs: 5 }, "top_logprobs"], [{ logprobs: true, top_logprobs: 21 }, "top_logprobs"]]) {
  try {
    await client.chat.completions.create({ model, messages, max_tokens: 4, ...body });
    fail(`${JSON.stringify(body)} was accepted`);
  } catch (e) {
    if (!(e instanceof OpenAI.BadRequestError) || e.param !== param) fail(`${JSON.stringify(body)}: not a 400 naming ${param}: ${e}`);
  }
}
console.log("choices and logprobs test: ok");
