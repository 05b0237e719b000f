#!/usr/bin/env python3
"""Measure, on one GPU, what `gpuplan train` and `gpuplan infer` predict.

Two measurements, each written as one JSON document under --out (default .):

  train.json   one training step of a Llama-style model read from a Hugging Face config.json (default:
               scripts/h200/llama-1b-config.json, the Llama 3.2 1B architecture) in PyTorch: BF16 autocast
               GEMMs, FP32 master weights, fused AdamW, FlashAttention through scaled_dot_product_attention,
               no activation recomputation, at the largest micro-batch (one micro-batch per step) that fits,
               median of timed steps after warm-ups, CUDA events.
  decode.json  one decode step of an 8B-class layer stack (Llama 3.1 8B shapes) at a given batch and
               context: per layer RMSNorm, QKV GEMM, KV append, GQA attention over the cache (batched GEMMs
               reading K and V once), output GEMM, RMSNorm, gate/up GEMM, SiLU x mul, down GEMM; then the
               final norm and the LM head. BF16 weights and KV cache. Timed eagerly and replayed as a CUDA
               graph (the graph removes the Python launch cost: the pure GPU time of the step).
  train_compiled.json  the same step with each decoder layer torch.compile'd (fused elementwise work, as
               production frameworks fuse it), at the eager run's micro-batch.
  rates.json   PyTorch's BF16 8192^3 matmul and device copy rates: a cross-check of the CUDA probe.

Every part runs on its own: a failure is recorded in its document and the others go on. The script only
measures; the predictions come from gpuplan (scripts/h200/predict.sh), run anywhere.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def timed(torch, fn, warmup, reps):
    """Median and all times (s) of fn() over reps, after warmup calls; CUDA events around each."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times), times


def env_info(torch):
    p = torch.cuda.get_device_properties(0)
    return {
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "device": p.name,
        "sms": p.multi_processor_count,
        "memory_bytes": p.total_memory,
        "cudnn": torch.backends.cudnn.version(),
    }


# ---------------------------------------------------------------------------------------------------
# Rates (cross-check of the CUDA probe)
def measure_rates(torch):
    out = {}
    n = 8192
    a = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) / 8 + 1 / 64
    b = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) / 8 + 1 / 64
    t, _ = timed(torch, lambda: a @ b, 3, 10)
    out["bf16_matmul_8192_tflops"] = 2 * n**3 / t / 1e12
    nbytes = 4 * 1024**3
    x = torch.empty(nbytes // 2, device="cuda", dtype=torch.bfloat16)
    y = torch.empty_like(x)
    t, _ = timed(torch, lambda: y.copy_(x), 3, 10)
    out["copy_read_plus_write_tb_s"] = 2 * nbytes / t / 1e12
    del a, b, x, y
    torch.cuda.empty_cache()
    return out


# ---------------------------------------------------------------------------------------------------
# Training step of a Llama-style model
def rope_tables(torch, seq, head_dim, theta, device):
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=device, dtype=torch.float32) / head_dim))
    t = torch.arange(seq, device=device, dtype=torch.float32)
    f = torch.outer(t, inv)
    return torch.cos(f).to(torch.bfloat16), torch.sin(f).to(torch.bfloat16)


def apply_rope(torch, x, cos, sin):
    # x: [b, h, s, d]; rotate halves (the Llama/HF convention)
    d = x.shape[-1] // 2
    x1, x2 = x[..., :d], x[..., d:]
    c = torch.cat([cos, cos], dim=-1)
    s = torch.cat([sin, sin], dim=-1)
    rot = torch.cat([-x2, x1], dim=-1)
    return x * c + rot * s


def build_llama(torch, cfg):
    nn = torch.nn
    F = torch.nn.functional
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kv = cfg.get("num_key_value_heads", heads)
    hd = cfg.get("head_dim", hidden // heads)
    ffn = cfg["intermediate_size"]
    eps = cfg.get("rms_norm_eps", 1e-5)

    # Fused attention only (flash, cuDNN or memory-efficient): the math fallback would materialise the
    # s x s scores. GQA natively where the fused kernels take it, else K and V expanded to every head.
    from torch.nn.attention import SDPBackend, sdpa_kernel
    fused = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
    native_gqa = False
    if kv != heads:
        try:
            t = torch.rand(1, heads, 128, hd, device="cuda", dtype=torch.bfloat16)
            u = torch.rand(1, kv, 128, hd, device="cuda", dtype=torch.bfloat16)
            with sdpa_kernel(fused):
                F.scaled_dot_product_attention(t, u, u, is_causal=True, enable_gqa=True)
            native_gqa = True
        except Exception:
            native_gqa = False
    cfg["_attention"] = "fused sdpa, " + ("native GQA" if native_gqa or kv == heads else "K/V expanded to all heads")

    def attention(q, k, v):
        if kv != heads and not native_gqa:
            b, _, s, _ = k.shape
            k = k[:, :, None].expand(b, kv, heads // kv, s, hd).reshape(b, heads, s, hd)
            v = v[:, :, None].expand(b, kv, heads // kv, s, hd).reshape(b, heads, s, hd)
        with sdpa_kernel(fused):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=native_gqa)

    class Layer(nn.Module):
        def __init__(self):
            super().__init__()
            self.n1 = nn.RMSNorm(hidden, eps=eps)
            self.qkv = nn.Linear(hidden, (heads + 2 * kv) * hd, bias=False)
            self.o = nn.Linear(heads * hd, hidden, bias=False)
            self.n2 = nn.RMSNorm(hidden, eps=eps)
            self.gate_up = nn.Linear(hidden, 2 * ffn, bias=False)
            self.down = nn.Linear(ffn, hidden, bias=False)

        def forward(self, x, cos, sin):
            b, s, _ = x.shape
            h = self.n1(x)
            q, k, v = self.qkv(h).split([heads * hd, kv * hd, kv * hd], dim=-1)
            q = q.view(b, s, heads, hd).transpose(1, 2)
            k = k.view(b, s, kv, hd).transpose(1, 2)
            v = v.view(b, s, kv, hd).transpose(1, 2)
            q = apply_rope(torch, q, cos, sin)
            k = apply_rope(torch, k, cos, sin)
            a = attention(q, k, v)
            x = x + self.o(a.transpose(1, 2).reshape(b, s, heads * hd))
            g, u = self.gate_up(self.n2(x)).chunk(2, dim=-1)
            return x + self.down(F.silu(g) * u)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(cfg["vocab_size"], hidden)
            self.layers = nn.ModuleList([Layer() for _ in range(cfg["num_hidden_layers"])])
            self.norm = nn.RMSNorm(hidden, eps=eps)
            self.head = nn.Linear(hidden, cfg["vocab_size"], bias=False)
            if cfg.get("tie_word_embeddings", False):
                self.head.weight = self.emb.weight

        def forward(self, tokens, cos, sin):
            x = self.emb(tokens)
            for layer in self.layers:
                x = layer(x, cos, sin)
            return self.head(self.norm(x))

    return Model()


def measure_train(torch, cfg, seq, mbs_list, reps, compile_layers=False):
    F = torch.nn.functional
    out = {"config": cfg, "seq_len": seq, "attempts": [], "compiled": compile_layers}
    model = build_llama(torch, cfg).cuda()
    if compile_layers:  # torch.compile each decoder layer (one graph, reused): fused norms, RoPE, SwiGLU
        for layer in model.layers:
            layer.compile()
    out["params"] = sum(p.numel() for p in model.parameters())
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    cos, sin = rope_tables(torch, seq, cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"]),
                           cfg.get("rope_theta", 10000.0), "cuda")
    vocab = cfg["vocab_size"]

    def step(tokens, labels):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens, cos, sin)
        loss = F.cross_entropy(logits.float().view(-1, vocab), labels.view(-1))
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    for mbs in mbs_list:
        try:
            tokens = torch.randint(0, vocab, (mbs, seq), device="cuda")
            labels = torch.randint(0, vocab, (mbs, seq), device="cuda")
            torch.cuda.reset_peak_memory_stats()
            t0 = time.time()
            step(tokens, labels)  # the first step (compilation when compiled)
            torch.cuda.synchronize()
            out["first_step_s"] = time.time() - t0
            t, times = timed(torch, lambda: step(tokens, labels), 2, reps)
            out["attempts"].append({"mbs": mbs, "ok": True})
            out.update({
                "mbs": mbs,
                "global_batch": mbs,
                "step_time_s": t,
                "step_times_s": times,
                "tokens_per_s": mbs * seq / t,
                "peak_memory_bytes": torch.cuda.max_memory_allocated(),
            })
            return out
        except torch.cuda.OutOfMemoryError as e:  # try a smaller micro-batch
            out["attempts"].append({"mbs": mbs, "ok": False, "why": str(e).splitlines()[0]})
            opt.zero_grad(set_to_none=True)
            tokens = labels = None
            torch.cuda.empty_cache()
    out["error"] = "no micro-batch fitted"
    return out


def measure_train_memory(torch, cfg, seq, mbs_list):
    """Where a training step's memory goes, eagerly, per micro-batch: allocated bytes with the weights and
    optimizer state alone, after the forward (saved activations + logits), after the loss, and the peak of
    the step (backward included). The slope over micro-batches is the activation memory per sequence."""
    F = torch.nn.functional
    model = build_llama(torch, cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    cos, sin = rope_tables(torch, seq, cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"]),
                           cfg.get("rope_theta", 10000.0), "cuda")
    vocab = cfg["vocab_size"]
    out = {"config": cfg, "seq_len": seq, "points": []}
    for mbs in mbs_list:
        tokens = torch.randint(0, vocab, (mbs, seq), device="cuda")
        labels = torch.randint(0, vocab, (mbs, seq), device="cuda")
        for _ in range(2):  # the first step creates the optimizer state
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            m0 = torch.cuda.memory_allocated()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(tokens, cos, sin)
            m1 = torch.cuda.memory_allocated()
            loss = F.cross_entropy(logits.float().view(-1, vocab), labels.view(-1))
            m2 = torch.cuda.memory_allocated()
            p_fwd = torch.cuda.max_memory_allocated()
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated()
            del logits, loss
        out["points"].append({"mbs": mbs, "static_bytes": m0, "after_forward_bytes": m1, "after_loss_bytes": m2,
                              "peak_forward_bytes": p_fwd, "peak_bytes": peak,
                              "reserved_bytes": torch.cuda.max_memory_reserved()})
        log("train_memory", json.dumps(out["points"][-1]))
        tokens = labels = None
        torch.cuda.empty_cache()
    return out


def measure_prefill(torch, cfg, shapes, reps):
    """The prefill of a serving engine: the layer stack's forward over whole prompts in BF16 weights (no
    autocast casts), fused causal attention, the LM head on each sequence's last token only; one timing
    per (sequences, tokens) shape, eagerly (prefill steps are long enough that launch cost is small)."""
    model = build_llama(torch, cfg).cuda().to(torch.bfloat16)
    vocab = cfg["vocab_size"]
    hd = cfg.get("head_dim", cfg["hidden_size"] // cfg["num_attention_heads"])
    out = {"config": cfg, "points": []}
    with torch.no_grad():
        for b, s in shapes:
            cos, sin = rope_tables(torch, s, hd, cfg.get("rope_theta", 10000.0), "cuda")
            cos, sin = cos.to(torch.bfloat16), sin.to(torch.bfloat16)
            tokens = torch.randint(0, vocab, (b, s), device="cuda")

            def fwd():
                x = model.emb(tokens)
                for layer in model.layers:
                    x = layer(x, cos, sin)
                return model.head(model.norm(x[:, -1]))

            t, times = timed(torch, fwd, 2, reps)
            out["points"].append({"sequences": b, "tokens": s, "time_s": t, "times_s": times,
                                  "tokens_per_s": b * s / t})
            log("prefill", json.dumps(out["points"][-1]))
    return out


# ---------------------------------------------------------------------------------------------------
# Decode step of an 8B-class layer stack
def measure_decode(torch, cfg, batch, context, reps, attention="bmm"):
    """attention: "bmm" (batched GEMMs over the cache), "sdpa" (PyTorch's fused attention kernels on a
    one-token query, native GQA: what serving engines' decode kernels do) or "none" (the step without
    attention: weights, norms and the LM head alone)."""
    F = torch.nn.functional
    hidden = cfg["hidden_size"]
    heads = cfg["num_attention_heads"]
    kv = cfg["num_key_value_heads"]
    hd = cfg.get("head_dim", hidden // heads)
    ffn = cfg["intermediate_size"]
    layers = cfg["num_hidden_layers"]
    vocab = cfg["vocab_size"]
    group = heads // kv
    dt = torch.bfloat16
    dev = "cuda"

    def w(*shape):
        return (torch.rand(*shape, device=dev, dtype=dt) - 0.5) * (2.0 / math.sqrt(shape[-1]))

    W = []
    for _ in range(layers):
        W.append({
            "n1": torch.ones(hidden, device=dev, dtype=dt),
            "qkv": w((heads + 2 * kv) * hd, hidden),
            "o": w(hidden, heads * hd),
            "n2": torch.ones(hidden, device=dev, dtype=dt),
            "gate_up": w(2 * ffn, hidden),
            "down": w(hidden, ffn),
        })
    emb = w(vocab, hidden)
    norm = torch.ones(hidden, device=dev, dtype=dt)
    head = w(vocab, hidden)
    # KV cache: [layers][batch*kv, context+1, hd]; the step attends over `context` cached tokens + the new one
    kc = [torch.rand(batch * kv, context + 1, hd, device=dev, dtype=dt) - 0.5 for _ in range(layers)]
    vc = [torch.rand(batch * kv, context + 1, hd, device=dev, dtype=dt) - 0.5 for _ in range(layers)]
    tokens = torch.randint(0, vocab, (batch,), device=dev)
    scale = 1.0 / math.sqrt(hd)
    from torch.nn.attention import SDPBackend, sdpa_kernel
    fused = [SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION, SDPBackend.EFFICIENT_ATTENTION]
    # Bytes a step must read: every layer's weights and the LM head; of the embedding only the batch's rows.
    weight_bytes = sum(t.numel() * 2 for L in W for t in L.values()) + head.numel() * 2 + batch * hidden * 2
    kv_bytes = sum(t.numel() * 2 for t in kc) + sum(t.numel() * 2 for t in vc)

    def step():
        x = F.embedding(tokens, emb)  # [b, hidden]
        for i in range(layers):
            L = W[i]
            h = F.rms_norm(x, (hidden,), L["n1"])
            q, k, v = F.linear(h, L["qkv"]).split([heads * hd, kv * hd, kv * hd], dim=-1)
            # append this step's K and V at position `context`
            kc[i][:, context, :] = k.reshape(batch * kv, hd)
            vc[i][:, context, :] = v.reshape(batch * kv, hd)
            if attention == "bmm":
                qg = q.reshape(batch * kv, group, hd)
                s = torch.bmm(qg, kc[i].transpose(1, 2)) * scale        # [b*kv, group, ctx+1]
                p = torch.softmax(s.float(), dim=-1).to(dt)
                a = torch.bmm(p, vc[i]).reshape(batch, heads * hd)      # [b*kv, group, hd]
            elif attention == "sdpa":
                with sdpa_kernel(fused):
                    a = F.scaled_dot_product_attention(
                        q.reshape(batch, heads, 1, hd), kc[i].view(batch, kv, context + 1, hd),
                        vc[i].view(batch, kv, context + 1, hd), enable_gqa=True).reshape(batch, heads * hd)
            else:
                a = q
            x = x + F.linear(a, L["o"])
            g, u = F.linear(F.rms_norm(x, (hidden,), L["n2"]), L["gate_up"]).chunk(2, dim=-1)
            x = x + F.linear(F.silu(g) * u, L["down"])
        return F.linear(F.rms_norm(x, (hidden,), norm), head)

    if attention == "none":
        kv_bytes = 0
    out = {"config": cfg, "batch": batch, "context": context, "weight_bytes": weight_bytes,
           "kv_cache_bytes": kv_bytes, "attention": attention}
    with torch.no_grad():
        t_eager, _ = timed(torch, step, 3, reps)
        out["step_time_eager_s"] = t_eager
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(3):
                    step()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                step()
            t_graph, times = timed(torch, g.replay, 3, reps)
            out["step_time_graph_s"] = t_graph
            out["step_times_graph_s"] = times
        except Exception as e:  # graphs unavailable: the eager time stands
            out["graph_error"] = repr(e)
    t = out.get("step_time_graph_s", t_eager)
    out["bytes_per_step"] = weight_bytes + kv_bytes
    out["achieved_tb_s"] = (weight_bytes + kv_bytes) / t / 1e12
    out["tokens_per_s"] = batch / t
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=".")
    ap.add_argument("--train-config", default=os.path.join(here, "llama-1b-config.json"))
    ap.add_argument("--decode-config", default=os.path.join(here, "llama-8b-config.json"))
    ap.add_argument("--seq", type=int, default=4096)
    ap.add_argument("--mbs", default="24,16,12,8,4,2,1", help="micro-batches tried, largest first")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--context", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--only", default="rates,train,decode,train_compiled",
                    help="parts: rates, train, train_compiled, train_memory, prefill, decode, decode_sdpa, decode_noattn")
    ap.add_argument("--prefill-shapes", default="1x1024,1x4096,4x4096", help="prefill: SEQUENCESxTOKENS,...")
    ap.add_argument("--memory-mbs", default="1,2,4", help="train_memory: micro-batches measured")
    args = ap.parse_args()
    import torch
    os.makedirs(args.out, exist_ok=True)
    info = env_info(torch)
    log("env", json.dumps(info))
    parts = args.only.split(",")
    for name in parts:
        t0 = time.time()
        try:
            if name == "rates":
                doc = measure_rates(torch)
            elif name == "train":
                cfg = json.load(open(args.train_config))
                doc = measure_train(torch, cfg, args.seq, [int(x) for x in args.mbs.split(",")], args.reps)
            elif name == "train_compiled":
                cfg = json.load(open(args.train_config))
                done = json.load(open(os.path.join(args.out, "train.json"))) if os.path.exists(
                    os.path.join(args.out, "train.json")) else {}
                mbs_list = [int(x) for x in args.mbs.split(",")]
                if "mbs" in done:  # start from what fitted eagerly: compiled steps need no more memory
                    mbs_list = [m for m in mbs_list if m <= done["mbs"]]
                doc = measure_train(torch, cfg, args.seq, mbs_list, args.reps, compile_layers=True)
            elif name == "prefill":
                cfg = json.load(open(args.decode_config))
                shapes = [tuple(int(y) for y in x.split("x")) for x in args.prefill_shapes.split(",")]
                doc = measure_prefill(torch, cfg, shapes, args.reps)
            elif name == "train_memory":
                cfg = json.load(open(args.train_config))
                doc = measure_train_memory(torch, cfg, args.seq, [int(x) for x in args.memory_mbs.split(",")])
            elif name in ("decode", "decode_sdpa", "decode_noattn"):
                cfg = json.load(open(args.decode_config))
                attention = {"decode": "bmm", "decode_sdpa": "sdpa", "decode_noattn": "none"}[name]
                doc = measure_decode(torch, cfg, args.batch, args.context, args.reps, attention)
            else:
                raise ValueError(f"--only: unknown part {name!r} (rates, train, train_compiled, train_memory, "
                                 "prefill, decode, decode_sdpa, decode_noattn)")
        except Exception as e:
            doc = {"error": repr(e), "traceback": traceback.format_exc()}
        doc["env"] = info
        doc["wall_s"] = time.time() - t0
        with open(os.path.join(args.out, f"{name}.json"), "w") as f:
            json.dump(doc, f, indent=1)
        log(name, json.dumps({k: v for k, v in doc.items() if not isinstance(v, (list, dict))}))
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
