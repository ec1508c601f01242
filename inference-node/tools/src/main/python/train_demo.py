"""Trains TenSafe's demo model and demo adapter (./tensafe model demo runs it; see ADR 0036).

Input: the token ids that io.tensafe.node.tools.demomodel wrote (the Qwen3 tokenizer runs in
Java; this side has no tokenizer). Output, in --out: model.safetensors (a Qwen3-architecture
decoder: q/k norms, untied embeddings, BF16) and demo-adapter/ (a PEFT LoRA folder, F32).

Vocabulary trick: the softmax runs over the ids that occur in the data plus one class standing
for every other id, whose logit is u.h + log(N_unused). Every unused lm_head row is written as u,
which makes the full-vocabulary softmax exactly the one trained: no unused token is ever favoured.
Unused embedding rows are the mean of the used ones.

Reproducible: the same seed, data and thread count write the same bytes.
Run with Debian's python3-torch (/usr/bin/python3). Standard library, numpy and torch only.
"""

import argparse
import json
import math
import os
import struct
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

SPECIAL_IDS = (151643, 151644, 151645)  # <|endoftext|>, <|im_start|>, <|im_end|>
TARGETS = ("q_proj", "v_proj", "o_proj", "down_proj")


def read_examples(path):
    """A list of (ids, prompt_length) from Java's file: int32 count, then per example
    int32 length, int32 prompt length, length int32 ids (little-endian)."""
    raw = np.fromfile(path, dtype="<i4")
    count, pos, out = int(raw[0]), 1, []
    for _ in range(count):
        n, prompt = int(raw[pos]), int(raw[pos + 1])
        out.append((raw[pos + 2 : pos + 2 + n].astype(np.int64), prompt))
        pos += 2 + n
    if pos != len(raw):
        raise ValueError(f"{path}: {len(raw) - pos} trailing values")
    return out


class RmsNorm(torch.nn.Module):
    def __init__(self, n, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.ones(n))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Lora(torch.nn.Module):
    """W x + (alpha/r) B A x, A and B as PEFT names and shapes them (A: r x in, B: out x r)."""

    def __init__(self, base, rank, alpha):
        super().__init__()
        self.base = base
        self.scale = alpha / rank
        self.A = torch.nn.Parameter(torch.empty(rank, base.in_features))
        torch.nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        self.B = torch.nn.Parameter(torch.zeros(base.out_features, rank))

    def forward(self, x):
        return self.base(x) + self.scale * F.linear(F.linear(x, self.A), self.B)


class Layer(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        h, d = c["hidden"], c["head_dim"]
        self.heads, self.kv, self.d = c["heads"], c["kv_heads"], d
        self.input_layernorm = RmsNorm(h, c["eps"])
        self.q_proj = torch.nn.Linear(h, self.heads * d, bias=False)
        self.k_proj = torch.nn.Linear(h, self.kv * d, bias=False)
        self.v_proj = torch.nn.Linear(h, self.kv * d, bias=False)
        self.o_proj = torch.nn.Linear(self.heads * d, h, bias=False)
        self.q_norm = RmsNorm(d, c["eps"])
        self.k_norm = RmsNorm(d, c["eps"])
        self.post_attention_layernorm = RmsNorm(h, c["eps"])
        self.gate_proj = torch.nn.Linear(h, c["intermediate"], bias=False)
        self.up_proj = torch.nn.Linear(h, c["intermediate"], bias=False)
        self.down_proj = torch.nn.Linear(c["intermediate"], h, bias=False)

    def forward(self, x, cos, sin, mask):
        b, t, _ = x.shape
        h = self.input_layernorm(x)
        q = self.q_norm(self.q_proj(h).view(b, t, self.heads, self.d)).transpose(1, 2)
        k = self.k_norm(self.k_proj(h).view(b, t, self.kv, self.d)).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.kv, self.d).transpose(1, 2)
        q, k = rope(q, cos, sin), rope(k, cos, sin)
        k = k.repeat_interleave(self.heads // self.kv, dim=1)
        v = v.repeat_interleave(self.heads // self.kv, dim=1)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.d) + mask
        a = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, self.heads * self.d)
        x = x + self.o_proj(a)
        m = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(m)) * self.up_proj(m))


def rope(x, cos, sin):
    half = x.shape[-1] // 2
    rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
    return x * cos + rotated * sin


class Model(torch.nn.Module):
    """Qwen3 over the used ids only: embedding (V_used, h), head (V_used, h) and u (h)."""

    def __init__(self, c, used):
        super().__init__()
        self.c = c
        self.embed = torch.nn.Embedding(used, c["hidden"])
        self.layers = torch.nn.ModuleList(Layer(c) for _ in range(c["layers"]))
        self.norm = RmsNorm(c["hidden"], c["eps"])
        self.head = torch.nn.Linear(c["hidden"], used, bias=False)
        self.u = torch.nn.Parameter(torch.zeros(c["hidden"]))
        self.log_unused = math.log(c["vocab"] - used)
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * c["layers"]) if name.endswith(("o_proj.weight", "down_proj.weight")) else 0.02
                torch.nn.init.normal_(p, std=std)
        d = c["head_dim"]
        self.inv_freq = 1.0 / (c["rope_theta"] ** (torch.arange(0, d, 2, dtype=torch.float64) / d))

    def forward(self, ids):
        t = ids.shape[1]
        angles = torch.outer(torch.arange(t, dtype=torch.float64), self.inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        cos, sin = angles.cos().float(), angles.sin().float()
        mask = torch.full((t, t), float("-inf")).triu(1)
        x = self.embed(ids)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        h = self.norm(x)
        other = (h @ self.u).unsqueeze(-1) + self.log_unused
        return torch.cat((self.head(h), other), dim=-1)


def batches(examples, batch_size, generator):
    """Batches in a seeded order, examples of similar length together (less padding)."""
    order = torch.randperm(len(examples), generator=generator).tolist()
    chunk = batch_size * 32
    out = []
    for s in range(0, len(order), chunk):
        part = sorted(order[s : s + chunk], key=lambda i: len(examples[i][0]))
        out += [part[j : j + batch_size] for j in range(0, len(part), batch_size)]
    perm = torch.randperm(len(out), generator=generator).tolist()
    return [out[i] for i in perm]


def tensors(examples, idx, to_compact, prompt_loss):
    """(inputs, targets, weights) of a batch, padded; targets in compact ids."""
    t = max(len(examples[i][0]) for i in idx) - 1
    inputs = torch.zeros(len(idx), t, dtype=torch.long)
    targets = torch.zeros(len(idx), t, dtype=torch.long)
    weights = torch.zeros(len(idx), t)
    for r, i in enumerate(idx):
        ids, prompt = examples[i]
        c = torch.from_numpy(to_compact[ids])
        n = len(ids) - 1
        inputs[r, :n], targets[r, :n] = c[:-1], c[1:]
        weights[r, (0 if prompt_loss else prompt - 1) : n] = 1
    return inputs, targets, weights


def bf16_matmuls():
    """True where the CPU multiplies BF16 natively (AVX512-BF16 or AMX): autocast is then about 7x
    faster than F32 on 2 cores; elsewhere training runs in F32 (same recipe, other bytes)."""
    try:
        with open("/proc/cpuinfo") as f:
            flags = set(next(line for line in f if line.startswith("flags")).split())
        return bool(flags & {"avx512_bf16", "amx_bf16"})
    except (OSError, StopIteration):
        return False


def train(model, params, examples, to_compact, steps, batch_size, lr, seed, prompt_loss, label, bf16):
    generator = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(params, lr=lr, betas=(0.9, 0.98), weight_decay=0.0)
    warmup = max(1, steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda s: min(1.0, (s + 1) / warmup) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, s / steps)))),
    )
    order, step, window, started, tokens = [], 0, [], time.time(), 0
    while step < steps:
        if not order:
            order = batches(examples, batch_size, generator)
        inputs, targets, weights = tensors(examples, order.pop(), to_compact, prompt_loss)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(inputs)
        logits = logits.float()
        losses = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), reduction="none")
        loss = (losses * weights.reshape(-1)).sum() / weights.sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        schedule.step()
        step += 1
        tokens += int(weights.sum())
        window.append(loss.item())
        if step % 50 == 0 or step == steps:
            print(f"{label} step {step}/{steps} loss {sum(window) / len(window):.3f} "
                  f"({time.time() - started:.0f} s, {tokens / (time.time() - started):.0f} tokens/s)", flush=True)
            final, window = sum(window) / len(window), []
    return final


def bf16_bytes(t):
    return t.contiguous().to(torch.bfloat16).view(torch.int16).numpy().astype("<i2").tobytes()


def f32_bytes(t):
    return t.contiguous().float().numpy().astype("<f4").tobytes()


def write_safetensors(path, named, dtype):
    """Tensors in name order, contiguous from offset 0, header padded to 8 bytes; temp + rename."""
    encode = bf16_bytes if dtype == "BF16" else f32_bytes
    header, blobs, offset = {"__metadata__": {"format": "pt"}}, [], 0
    for name in sorted(named):
        data = encode(named[name])
        header[name] = {"dtype": dtype, "shape": list(named[name].shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path + ".tmp", "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        for b in blobs:
            out.write(b)
    os.replace(path + ".tmp", path)


def export_model(model, used_ids, vocab):
    """The folder's tensors under transformers' Qwen3 names, over the full vocabulary."""
    with torch.no_grad():
        index = torch.from_numpy(used_ids)
        embed = model.embed.weight.mean(0).repeat(vocab, 1)
        embed[index] = model.embed.weight
        head = model.u.detach().repeat(vocab, 1)
        head[index] = model.head.weight
        named = {"model.embed_tokens.weight": embed, "lm_head.weight": head, "model.norm.weight": model.norm.weight}
        for i, layer in enumerate(model.layers):
            for name, p in layer.named_parameters():
                block = "mlp." if name.split(".")[0] in ("gate_proj", "up_proj", "down_proj") else (
                    "" if "layernorm" in name else "self_attn.")
                named[f"model.layers.{i}.{block}{name}"] = p.detach()
    return named


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="folder with base.bin and adapter.bin")
    p.add_argument("--out", required=True)
    p.add_argument("--config", required=True, help="JSON: vocab, hidden, intermediate, layers, heads, ...")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--base-steps", type=int, default=800)
    p.add_argument("--adapter-steps", type=int, default=400)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--base-model", default="tensafe/qwen3-demo")
    p.add_argument("--precision", choices=("auto", "bf16", "f32"), default="auto",
                   help="matrix products in training: auto is bf16 where the CPU has BF16 instructions")
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    c = json.loads(a.config)
    base = read_examples(os.path.join(a.data, "base.bin"))
    banking = read_examples(os.path.join(a.data, "adapter.bin"))
    used_ids = np.unique(np.concatenate([e[0] for e in base + banking] + [np.array(SPECIAL_IDS)]))
    to_compact = np.full(c["vocab"], len(used_ids), dtype=np.int64)
    to_compact[used_ids] = np.arange(len(used_ids))
    print(f"{len(base)} base and {len(banking)} adapter examples, {len(used_ids)} of {c['vocab']} ids used", flush=True)

    bf16 = a.precision == "bf16" or (a.precision == "auto" and bf16_matmuls())
    print(f"training with {'BF16' if bf16 else 'F32'} matrix products on {a.threads} threads", flush=True)
    model = Model(c, len(used_ids))
    started = time.time()
    base_loss = train(model, list(model.parameters()), base, to_compact, a.base_steps, a.batch, 3e-3, a.seed, True, "base", bf16)
    base_seconds = time.time() - started
    os.makedirs(a.out, exist_ok=True)
    write_safetensors(os.path.join(a.out, "model.safetensors"), export_model(model, used_ids, c["vocab"]), "BF16")

    # The adapter learns on the base as served: BF16-rounded weights, frozen.
    with torch.no_grad():
        for q in model.parameters():
            q.copy_(q.to(torch.bfloat16).float())
            q.requires_grad_(False)
    loras = []
    for layer in model.layers:
        for t in TARGETS:
            lora = Lora(getattr(layer, t), rank=8, alpha=16)
            setattr(layer, t, lora)
            loras.append(lora)
    params = [q for lora in loras for q in (lora.A, lora.B)]
    started = time.time()
    adapter_loss = train(model, params, banking, to_compact, a.adapter_steps, 16, 1e-2, a.seed + 1, False, "adapter", bf16)
    adapter_seconds = time.time() - started
    named = {}
    for i, layer in enumerate(model.layers):
        for t in TARGETS:
            site = f"base_model.model.model.layers.{i}.{'mlp' if t == 'down_proj' else 'self_attn'}.{t}"
            named[site + ".lora_A.weight"] = getattr(layer, t).A.detach()
            named[site + ".lora_B.weight"] = getattr(layer, t).B.detach()
    folder = os.path.join(a.out, "demo-adapter")
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "adapter_model.safetensors"), named, "F32")
    config = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": a.base_model,
              "r": 8, "lora_alpha": 16, "lora_dropout": 0.0, "use_rslora": False, "use_dora": False,
              "bias": "none", "target_modules": sorted(TARGETS)}
    with open(os.path.join(folder, "adapter_config.json"), "w") as out:
        json.dump(config, out, indent=2)
        out.write("\n")
    print(json.dumps({"used_ids": int(len(used_ids)), "precision": "bf16" if bf16 else "f32", "base_loss": round(base_loss, 4),
                      "adapter_loss": round(adapter_loss, 4), "base_seconds": round(base_seconds, 1),
                      "adapter_seconds": round(adapter_seconds, 1)}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
