"""A real OpenAI-compatible server for the LLM agent's tests: llama.cpp's
own HTTP server (the `xllamacpp` wheel) serving a tiny model written here,
with nothing downloaded.

The model is a 2-layer llama with a byte-and-character vocabulary and random
weights, except that one embedding dimension carries a fixed preference per
token into the output layer: under greedy decoding it prefers to stop, then
closing quotes and brackets, then digits. Under a JSON-schema grammar it
therefore writes the shortest document the schema allows, deterministically:
what the server's grammar-constrained decoding makes of EGG's schemas, not
a good decision.

    python tiny_llm.py write MODEL.gguf   # the model
    python tiny_llm.py serve MODEL.gguf   # prints 'LISTENING <url>', serves
"""
import signal
import sys
import time

SPACE = "\u2581"  # SentencePiece's word boundary.
# Greedy preference of some tokens (higher first); others 0, spaces -5.
PREFERENCE = {"</s>": 10.0, '"': 9.5, '"}': 9.4, "}": 9.0, "]": 8.0, "0": 6.0,
              "{": 5.5, '{"': 5.4, '":': 5.3, '",': 5.2, ",": 5.1, ":": 5.0,
              "[": 4.5, "true": 4.4, "false": 4.3, "null": 4.2,
              "<s>": -10.0, "<unk>": -10.0}
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
# The prompts are read a character a token: tens of thousands of tokens.
CONTEXT = 65536


def vocabulary(gguf):
    kind = gguf.TokenType
    tokens = [("<unk>", kind.UNKNOWN), ("<s>", kind.CONTROL), ("</s>", kind.CONTROL)]
    tokens += [("<0x%02X>" % b, kind.BYTE) for b in range(256)]
    tokens += [(SPACE if c == " " else c, kind.NORMAL) for c in map(chr, range(0x20, 0x7F))]
    tokens += [(p, kind.NORMAL) for p in ('{"', '":', '",', '"}', "true", "false", "null")]
    return tokens


def preference(token):
    if token in PREFERENCE:
        return PREFERENCE[token]
    if token.startswith(SPACE):
        return -5.0
    return -3.0 if token.startswith("<0x") else 0.0


def write(path, layers=2, width=64, heads=4, hidden=128, seed=0):
    import gguf
    import numpy as np
    rng = np.random.default_rng(seed)
    tokens = vocabulary(gguf)

    def weights(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    w = gguf.GGUFWriter(str(path), "llama")
    w.add_name("egg-tiny-test-llama")
    w.add_context_length(CONTEXT)
    w.add_embedding_length(width)
    w.add_block_count(layers)
    w.add_feed_forward_length(hidden)
    w.add_head_count(heads)
    w.add_head_count_kv(heads)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(width // heads)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(len(tokens))
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("llama")
    w.add_tokenizer_pre("default")
    w.add_token_list([t for t, _ in tokens])
    w.add_token_scores([0.0 if k != gguf.TokenType.NORMAL or len(t) > 1 else -1.0
                        for t, k in tokens])
    w.add_token_types([int(k) for _, k in tokens])
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template(CHAT_TEMPLATE)
    embedding = weights(len(tokens), width)
    embedding[:, 0] = 1.0  # Carries the preference to the output layer.
    w.add_tensor("token_embd.weight", embedding)
    for i in range(layers):
        for name, shape in (("attn_q", (width, width)), ("attn_k", (width, width)),
                            ("attn_v", (width, width)), ("attn_output", (width, width)),
                            ("ffn_gate", (hidden, width)), ("ffn_up", (hidden, width)),
                            ("ffn_down", (width, hidden))):
            w.add_tensor(f"blk.{i}.{name}.weight", weights(*shape))
        for norm in ("attn_norm", "ffn_norm"):
            w.add_tensor(f"blk.{i}.{norm}.weight", np.ones(width, np.float32))
    w.add_tensor("output_norm.weight", np.ones(width, np.float32))
    output = weights(len(tokens), width)
    output[:, 0] = [preference(t) for t, _ in tokens]
    w.add_tensor("output.weight", output)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def serve(path):
    import xllamacpp
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = CONTEXT
    params.n_parallel = 1
    params.port = 0  # Any free port: the address is printed.
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.warmup = False
    server = xllamacpp.Server(params)
    print(f"LISTENING {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    {"write": write, "serve": serve}[sys.argv[1]](sys.argv[2])
