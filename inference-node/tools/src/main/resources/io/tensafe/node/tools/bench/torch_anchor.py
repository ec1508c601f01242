"""PyTorch eager on a Qwen2 / Qwen2.5 / Qwen3 model folder: the anchor of `./tensafe bench node --anchors`.

What a user would run instead of the node on the same machine: the folder's safetensors read as
they are (no `safetensors` or `transformers` package: the header is parsed here, 8-byte
little-endian length, JSON, raw data), the weights held in the dtype asked (`bf16`: the model as
`model.to(torch.bfloat16)`, activations in BF16 too, softmax and RMSNorm in F32 as
`transformers` does; `f32`), `torch.no_grad()`, a KV cache, `torch.set_num_threads(--threads)`.

The forward is `transformers`' Qwen2/Qwen3 eager forward, written out: embedding, per layer
RMSNorm, q/k/v projections (with biases for Qwen2, per-head q/k RMSNorm for Qwen3), rotary
position embedding ("rotate half", `rope_theta` from config.json), grouped-query attention over the
cache with a causal mask, o projection, residual, RMSNorm, SwiGLU MLP, residual; final RMSNorm and
the head (tied to the embedding when `tie_word_embeddings`). Dense models only.

Modes (both print JSON lines on stdout; progress on stderr):
  --measure: for each dtype of --dtypes, one line {"dtype", "prefill_tokens", "prefill_s",
    "prefill_tokens_per_s", "decode_tokens", "decode_s", "decode_tokens_per_s", "greedy"}: after a
    warm-up (the prompt and 2 greedy tokens on a throwaway cache), the prompt's prefill on a fresh
    cache is timed, then 2 greedy tokens are decoded untimed and --decode-tokens greedy tokens
    timed. "greedy" lists every greedy token decoded after the timed prefill. Then a last line
    {"torch": version, "threads"}.
  --logits-out FILE: F32 logits (little-endian float32) of the prompt's last token, then of each
    --continuation token fed one at a time through the cache, in --dtypes' first dtype.

Run with Debian's python3-torch (/usr/bin/python3). Standard library and torch only.
"""

import argparse
import json
import math
import os
import struct
import sys
import time

import torch
import torch.nn.functional as F

MAX_HEADER_BYTES = 100 << 20
DTYPES = {"BF16": torch.bfloat16, "F16": torch.float16, "F32": torch.float32}
HELD = {"bf16": torch.bfloat16, "f32": torch.float32}
WARMUP_DECODE_TOKENS = 2


def read_safetensors(path, into):
    """Adds every tensor of one safetensors file to `into` (name -> tensor of its own dtype)."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        if length > MAX_HEADER_BYTES or 8 + length > size:
            raise ValueError(f"{path}: header of {length} bytes (limit {MAX_HEADER_BYTES}, file {size})")
        header = json.loads(f.read(length))
        base = 8 + length
        end_of_data = 0
        header.pop("__metadata__", None)
        for name, info in sorted(header.items(), key=lambda e: e[1]["data_offsets"][0]):
            dtype = DTYPES.get(info["dtype"])
            if dtype is None:
                raise ValueError(f"{path}: tensor {name} has dtype {info['dtype']} (known: {sorted(DTYPES)})")
            begin, end = info["data_offsets"]
            elements = math.prod(info["shape"])
            if begin != end_of_data or end - begin != elements * torch.tensor([], dtype=dtype).element_size():
                raise ValueError(f"{path}: tensor {name} at [{begin}, {end}) is not contiguous or not {info['shape']}")
            end_of_data = end
            data = bytearray(end - begin)
            f.seek(base + begin)
            if f.readinto(data) != len(data):
                raise ValueError(f"{path}: tensor {name} is truncated")
            flat = torch.frombuffer(data, dtype=dtype) if data else torch.empty(0, dtype=dtype)
            into[name] = flat.reshape(info["shape"])
        if base + end_of_data != size:
            raise ValueError(f"{path}: {size - base - end_of_data} trailing bytes")


def read_folder(folder):
    index = os.path.join(folder, "model.safetensors.index.json")
    if os.path.exists(index):
        with open(index) as f:
            files = sorted(set(json.load(f)["weight_map"].values()))
    else:
        files = ["model.safetensors"]
    weights = {}
    for name in files:
        read_safetensors(os.path.join(folder, name), weights)
    return weights


class Qwen:
    """The decoder over `weights` (consumed: each tensor is replaced by its copy in `dtype`)."""

    def __init__(self, config, weights, dtype):
        if config["model_type"] not in ("qwen2", "qwen3"):
            raise ValueError(f"model_type {config['model_type']}: only dense qwen2 and qwen3 are run")
        for name in list(weights):
            weights[name] = weights[name].to(dtype)
        self.w = weights
        self.dtype = dtype
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.kv_heads = config["num_key_value_heads"]
        self.head_dim = config.get("head_dim") or config["hidden_size"] // self.heads
        self.eps = config.get("rms_norm_eps", 1e-6)
        self.theta = config.get("rope_theta", 10000.0)
        self.qk_norm = config["model_type"] == "qwen3"
        tied = config.get("tie_word_embeddings", False) or "lm_head.weight" not in weights
        self.head = weights["model.embed_tokens.weight"] if tied else weights["lm_head.weight"]
        d = self.head_dim
        self.inverse_frequency = 1.0 / (self.theta ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))

    def rms(self, x, weight):
        """transformers' Qwen2RMSNorm: in F32, cast back, times the weight."""
        y = x.float()
        y = y * torch.rsqrt(y.pow(2).mean(-1, keepdim=True) + self.eps)
        return weight * y.to(self.dtype)

    def new_cache(self):
        return {"length": 0, "k": [None] * self.layers, "v": [None] * self.layers}

    def forward(self, ids, cache):
        """Runs `ids` (1-D int64) after the cache's tokens; returns the last token's logits (F32)."""
        w, d, count, start = self.w, self.head_dim, ids.shape[0], cache["length"]
        positions = torch.arange(start, start + count).float()
        angles = positions[:, None] * self.inverse_frequency[None, :]
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos().to(self.dtype), angles.sin().to(self.dtype)  # (T, d)
        mask = None
        if count > 1:
            later = torch.arange(start + count)[None, :] > (start + torch.arange(count))[:, None]
            mask = torch.zeros(count, start + count, dtype=self.dtype).masked_fill(later, float("-inf"))
        x = F.embedding(ids, w["model.embed_tokens.weight"])
        for i in range(self.layers):
            p = f"model.layers.{i}."
            h = self.rms(x, w[p + "input_layernorm.weight"])
            q = F.linear(h, w[p + "self_attn.q_proj.weight"], w.get(p + "self_attn.q_proj.bias"))
            k = F.linear(h, w[p + "self_attn.k_proj.weight"], w.get(p + "self_attn.k_proj.bias"))
            v = F.linear(h, w[p + "self_attn.v_proj.weight"], w.get(p + "self_attn.v_proj.bias"))
            q = q.view(count, self.heads, d)
            k = k.view(count, self.kv_heads, d)
            if self.qk_norm:
                q = self.rms(q, w[p + "self_attn.q_norm.weight"])
                k = self.rms(k, w[p + "self_attn.k_norm.weight"])
            q, k, v = q.transpose(0, 1), k.transpose(0, 1), v.view(count, self.kv_heads, d).transpose(0, 1)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            if cache["k"][i] is not None:
                k = torch.cat((cache["k"][i], k), dim=1)
                v = torch.cat((cache["v"][i], v), dim=1)
            cache["k"][i], cache["v"][i] = k, v
            groups = self.heads // self.kv_heads
            k_all = k.repeat_interleave(groups, dim=0)  # head h reads key/value head h // groups
            v_all = v.repeat_interleave(groups, dim=0)
            scores = torch.matmul(q, k_all.transpose(1, 2)) / math.sqrt(d)
            if mask is not None:
                scores = scores + mask
            probabilities = F.softmax(scores, dim=-1, dtype=torch.float32).to(self.dtype)
            attended = torch.matmul(probabilities, v_all).transpose(0, 1).reshape(count, self.heads * d)
            x = x + F.linear(attended, w[p + "self_attn.o_proj.weight"])
            m = self.rms(x, w[p + "post_attention_layernorm.weight"])
            gate = F.linear(m, w[p + "mlp.gate_proj.weight"])
            up = F.linear(m, w[p + "mlp.up_proj.weight"])
            x = x + F.linear(F.silu(gate) * up, w[p + "mlp.down_proj.weight"])
        cache["length"] += count
        last = self.rms(x[-1:], w["model.norm.weight"])
        return F.linear(last, self.head)[0].float()


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def measure(model, prompt, decode_tokens):
    with torch.no_grad():
        cache = model.new_cache()
        logits = model.forward(prompt, cache)
        for _ in range(WARMUP_DECODE_TOKENS):
            logits = model.forward(logits.argmax().reshape(1), cache)
        del cache
        cache = model.new_cache()
        start = time.perf_counter()
        logits = model.forward(prompt, cache)
        prefill_s = time.perf_counter() - start
        greedy = []
        for _ in range(WARMUP_DECODE_TOKENS):
            greedy.append(int(logits.argmax()))
            logits = model.forward(torch.tensor(greedy[-1:]), cache)
        start = time.perf_counter()
        for _ in range(decode_tokens):
            greedy.append(int(logits.argmax()))
            logits = model.forward(torch.tensor(greedy[-1:]), cache)
        decode_s = time.perf_counter() - start
    return {
        "prefill_tokens": int(prompt.shape[0]),
        "prefill_s": prefill_s,
        "prefill_tokens_per_s": prompt.shape[0] / prefill_s,
        "decode_tokens": decode_tokens,
        "decode_s": decode_s,
        "decode_tokens_per_s": decode_tokens / decode_s,
        "greedy": greedy,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model-dir", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--prompt", required=True, help="token ids, comma-separated")
    parser.add_argument("--dtypes", default="bf16,f32", help="bf16 and/or f32, run in this order")
    parser.add_argument("--decode-tokens", type=int, default=8)
    parser.add_argument("--logits-out")
    parser.add_argument("--continuation", default="", help="with --logits-out: token ids fed after the prompt")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with open(os.path.join(args.model_dir, "config.json")) as f:
        config = json.load(f)
    prompt = torch.tensor([int(t) for t in args.prompt.split(",")], dtype=torch.int64)
    dtypes = args.dtypes.split(",")
    for dtype in dtypes:
        if dtype not in HELD:
            raise ValueError(f"--dtypes: {dtype} is not one of {sorted(HELD)}")
    if args.logits_out:
        model = Qwen(config, read_folder(args.model_dir), HELD[dtypes[0]])
        rows = []
        with torch.no_grad():
            cache = model.new_cache()
            rows.append(model.forward(prompt, cache))
            for token in filter(None, args.continuation.split(",")):
                rows.append(model.forward(torch.tensor([int(token)]), cache))
        values = torch.stack(rows).flatten().tolist()
        with open(args.logits_out, "wb") as f:
            f.write(struct.pack(f"<{len(values)}f", *values))
        return
    weights = read_folder(args.model_dir)
    for dtype in dtypes:  # one holding at a time: each conversion replaces the tensors it reads
        print(f"PyTorch {torch.__version__}: holding the weights as {dtype} ...", file=sys.stderr, flush=True)
        model = Qwen(config, weights, HELD[dtype])
        result = measure(model, prompt, args.decode_tokens)
        print(json.dumps({"dtype": dtype, **result}), flush=True)
        weights = model.w
        del model
    print(json.dumps({"torch": torch.__version__, "threads": torch.get_num_threads()}), flush=True)


if __name__ == "__main__":
    main()
