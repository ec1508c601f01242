"""An independent forward pass of a Qwen2 / Qwen2.5 / Qwen3 / Qwen3-MoE decoder, for tests only.

Written from the public description of the architecture (RMSNorm, rotary position embedding in
the "rotate half" form, grouped-query attention with optional q/k/v projection biases (Qwen2) or
per-head q/k RMSNorm (Qwen3), causal softmax attention, SwiGLU MLP or, in Qwen3-MoE's sparse
layers, a softmax router choosing each token's top-k SwiGLU experts, whose outputs it weights by
their probabilities (renormalised when norm_topk_prob), tied or separate output head),
in float64 with Debian's PyTorch. It reads the model folder itself (config.json and every
*.safetensors file: an 8-byte little-endian header length, a JSON header, then the raw tensors).

With an adapter (PEFT's tensor names, "base_model.model.<module>.lora_A.weight" [r, in] and
"...lora_B.weight" [out, r], in one safetensors file, and its scale s = alpha / r), every adapted
linear module computes W x (+ bias) + s * B (A x), as PEFT's LoRA layer does; an expert's module is
adapted only for the tokens routed to it, since only they run it.

Usage: python3 qwen_reference.py MODEL_DIR TOKEN,TOKEN,... OUT_FILE [ADAPTER_FILE SCALE]
Writes the last token's logits to OUT_FILE as little-endian float64.
"""
import glob
import json
import os
import struct
import sys

import torch


def read_safetensors(path):
    with open(path, "rb") as f:
        data = f.read()
    (header_len,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + header_len])
    body = data[8 + header_len :]
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        raw = bytearray(body[start:end])
        dtype = info["dtype"]
        if dtype == "F32":
            t = torch.frombuffer(raw, dtype=torch.float32)
        elif dtype == "BF16":
            bits = torch.frombuffer(raw, dtype=torch.int16).to(torch.int32) & 0xFFFF
            t = (bits << 16).view(torch.float32)
        elif dtype == "F16":
            t = torch.frombuffer(raw, dtype=torch.float16)
        else:
            raise ValueError(f"{name}: dtype {dtype} is not supported here")
        tensors[name] = t.to(torch.float64).reshape(info["shape"])
    return tensors


def rms_norm(x, weight, eps):
    return x / torch.sqrt((x * x).mean(dim=-1, keepdim=True) + eps) * weight


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


ADAPTER = {}
SCALE = 0.0


def linear(x, w, module):
    """x W^T (+ bias), plus the adapter's s * (x A^T) B^T where it adapts this module."""
    y = x @ w[module + ".weight"].T
    bias = w.get(module + ".bias")
    if bias is not None:
        y = y + bias
    a = ADAPTER.get("base_model.model." + module + ".lora_A.weight")
    if a is not None:
        b = ADAPTER["base_model.model." + module + ".lora_B.weight"]
        y = y + SCALE * ((x @ a.T) @ b.T)
    return y


def swiglu(m, w, prefix):
    gate = linear(m, w, prefix + "gate_proj")
    up = linear(m, w, prefix + "up_proj")
    return linear(torch.nn.functional.silu(gate) * up, w, prefix + "down_proj")


def sparse(config, layer):
    if config.get("model_type") != "qwen3_moe":
        return False
    step = config.get("decoder_sparse_step", 1)
    return layer not in config.get("mlp_only_layers", []) and (layer + 1) % step == 0


def experts(config, w, p, m):
    """Each token's top-k experts by router probability, their outputs weighted and summed."""
    probabilities = torch.softmax(m @ w[p + "mlp.gate.weight"].T, dim=-1)
    top, chosen = torch.topk(probabilities, config["num_experts_per_tok"], dim=-1)
    if config.get("norm_topk_prob", False):
        top = top / top.sum(dim=-1, keepdim=True)
    out = torch.zeros_like(m)
    for t in range(m.shape[0]):
        for k in range(chosen.shape[1]):
            e = int(chosen[t, k])
            out[t] += top[t, k] * swiglu(m[t : t + 1], w, p + f"mlp.experts.{e}.")[0]
    return out


def forward(model_dir, tokens):
    with open(os.path.join(model_dir, "config.json")) as f:
        config = json.load(f)
    w = {}
    for path in sorted(glob.glob(os.path.join(model_dir, "*.safetensors"))):
        w.update(read_safetensors(path))
    hidden = config["hidden_size"]
    heads = config["num_attention_heads"]
    kv_heads = config["num_key_value_heads"]
    head_dim = config.get("head_dim", hidden // heads)
    eps = config.get("rms_norm_eps", 1e-6)
    theta = config.get("rope_theta", 10000.0)
    n = len(tokens)

    x = w["model.embed_tokens.weight"][torch.tensor(tokens)]
    positions = torch.arange(n, dtype=torch.float64)
    inv_freq = theta ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = torch.outer(positions, inv_freq)
    angles = torch.cat((angles, angles), dim=-1)  # (n, head_dim)
    cos = torch.cos(angles)[:, None, :]
    sin = torch.sin(angles)[:, None, :]
    mask = torch.full((n, n), float("-inf"), dtype=torch.float64).triu(1)

    for layer in range(config["num_hidden_layers"]):
        p = f"model.layers.{layer}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)

        def project(name, out_heads):
            return linear(h, w, p + f"self_attn.{name}").reshape(n, out_heads, head_dim)

        q = project("q_proj", heads)
        k = project("k_proj", kv_heads)
        v = project("v_proj", kv_heads)
        if p + "self_attn.q_norm.weight" in w:
            q = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps)
            k = rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = heads // kv_heads
        k = k.repeat_interleave(group, dim=1)  # query head j reads key/value head j // group
        v = v.repeat_interleave(group, dim=1)
        scores = torch.einsum("thd,shd->hts", q, k) / head_dim**0.5 + mask
        attended = torch.einsum("hts,shd->thd", torch.softmax(scores, dim=-1), v)
        x = x + linear(attended.reshape(n, heads * head_dim), w, p + "self_attn.o_proj")

        m = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        if sparse(config, layer):
            x = x + experts(config, w, p, m)
        else:
            x = x + swiglu(m, w, p + "mlp.")

    last = rms_norm(x[-1], w["model.norm.weight"], eps)
    head = w.get("lm_head.weight")
    if config.get("tie_word_embeddings", False) or head is None:
        head = w["model.embed_tokens.weight"]
    return last @ head.T


def main():
    global ADAPTER, SCALE
    model_dir, token_list, out_file = sys.argv[1:4]
    if len(sys.argv) > 4:
        ADAPTER = read_safetensors(sys.argv[4])
        SCALE = float(sys.argv[5])
    tokens = [int(t) for t in token_list.split(",")]
    logits = forward(model_dir, tokens)
    with open(out_file, "wb") as f:
        f.write(struct.pack(f"<{logits.numel()}d", *logits.tolist()))


if __name__ == "__main__":
    main()
