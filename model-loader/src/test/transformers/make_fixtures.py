"""Tiny random checkpoints of every family HeadScope opens from issue 41, made and run by transformers itself.

Each variant is built from its family's config class (torch.manual_seed, from_config: transformers' own
initialisation), with norm scales and biases randomised too (they default to 1 and 0, which would hide a
misread norm or bias), saved by save_pretrained in the hub's layout (safetensors; bf16/fp16 where a variant
says so; sharded with model.safetensors.index.json for llama), together with a tokenizer.json of the kind the
family really uses. The saved folder is then loaded back by transformers in float64 (eager attention, so the
maps are the ones softmax produced) and run on the stored text (and target): the maps of every layer and every
query head go into expected.safetensors (F64), the ids and tokens into expected.json.

Run from the repository root with the venv of README.md in this folder:
    /work/hfenv/bin/python model-loader/src/test/transformers/make_fixtures.py
"""
import json
import os
import shutil
import sys

import sentencepiece as spm
import torch
import transformers
from safetensors.torch import save_file
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
from transformers.convert_slow_tokenizer import LlamaConverter, SentencePieceExtractor, T5Converter
from transformers.tokenization_utils_base import generate_merges

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "resources", "transformers")
WORK = "/tmp/headscope-fixture-work"

CORPUS = ["The cat sat on the mat.", "A cat sat on a mat near the door.",
          "The quick brown fox jumps over the lazy dog 12345.", "Attention heads look at tokens.",
          "the cat and the dog sat together on the warm mat", "Le café est très chaud.",
          "Heads in the middle layers copy the previous token."] * 20

LLAMA3_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*"
                r"|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_SPLIT = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*"
               r"|\s*[\r\n]+|\s+(?!\S)|\s+")


# ---------------------------------------------------------------- tokenizers

def byte_level(split, specials, template, vocab=300, lstrip_mask=False):
    """Byte-level BPE trained on CORPUS: Split(regex) + ByteLevel (Llama 3, Qwen2), or ByteLevel with GPT-2's
    regex when split is None (GPT-NeoX, ModernBERT, BART); specials first in the vocabulary."""
    tok = Tokenizer(models.BPE())
    if split is None:
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    else:
        tok.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex(split), behavior="isolated", invert=False),
            pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab, special_tokens=specials,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    if lstrip_mask:
        from tokenizers import AddedToken
        tok.add_special_tokens([AddedToken("[MASK]", lstrip=True, special=True)])
    if template is None:
        tok.post_processor = processors.ByteLevel(trim_offsets=False)
    else:
        single, pair = template
        names = sorted({t for t in single.split() + pair.split() if not t.startswith("$")})
        tok.post_processor = processors.Sequence([
            processors.ByteLevel(trim_offsets=False),
            processors.TemplateProcessing(single=single, pair=pair,
                                          special_tokens=[(n, tok.token_to_id(n)) for n in names])])
    return tok


def _spm(kind, vocab, path):
    if not os.path.exists(path + ".model"):
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(CORPUS), model_prefix=path, model_type=kind, vocab_size=vocab,
            byte_fallback=(kind == "bpe"), character_coverage=1.0,
            normalization_rule_name="nmt_nfkc" if kind == "unigram" else "identity",
            bos_id=1 if kind == "bpe" else -1, eos_id=2 if kind == "bpe" else 1, unk_id=0 if kind == "bpe" else 2,
            pad_id=-1 if kind == "bpe" else 0, remove_extra_whitespaces=(kind == "unigram"), minloglevel=2)
    return path + ".model"


class _Slow:
    """What transformers' converters read of a slow tokenizer (transformers 5 has none for these)."""

    def __init__(self, f):
        self.vocab_file = f
        self.sp = spm.SentencePieceProcessor(model_file=f)
        self.legacy = False
        self.add_prefix_space = True
        self._extra_ids = 0
        self.bos_token, self.eos_token = "<s>", "</s>"
        self.add_bos_token, self.add_eos_token = True, False

    def convert_tokens_to_ids(self, t):
        return self.sp.piece_to_id(t)

    def convert_ids_to_tokens(self, i):
        return self.sp.id_to_piece(i)


class _Extractor(SentencePieceExtractor):
    # transformers 5.18's LlamaConverter calls the extractor with 4.x's signature; this is 4.x's behaviour
    def extract(self, vocab_scores=None):
        vocab = {p.piece: i for i, p in enumerate(self.proto.pieces)}
        return vocab, generate_merges(vocab, vocab_scores)


def sentencepiece_bpe(gemma=False):
    """SentencePiece BPE with byte fallback (Llama 2, Mistral; Gemma's normalizer), converted by transformers'
    LlamaConverter from a model sentencepiece trained; BOS first."""
    LlamaConverter.SpmExtractor = _Extractor
    tok = LlamaConverter(_Slow(_spm("bpe", 330, WORK + "/sp_bpe"))).converted()
    if gemma:  # Gemma's tokenizer.json: no pre-tokenizer, spaces replaced by the normalizer, no prefix space
        tok.normalizer = normalizers.Replace(" ", "▁")
        tok.pre_tokenizer = None
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B",
                                                       special_tokens=[("<s>", 1)])
    return tok


def t5_unigram():
    """Unigram with the Precompiled (nmt_nfkc) normalizer, converted by transformers' T5Converter; </s> last."""
    return T5Converter(_Slow(_spm("unigram", 64, WORK + "/sp_unigram"))).converted()


# ---------------------------------------------------------------- models

def randomise(model, gemma_norms=False):
    """Norm scales around 1 (Gemma's stored w around 0: it scales by 1 + w) and biases around 0, in place."""
    g = torch.Generator().manual_seed(7)
    with torch.no_grad():
        for name, p in model.named_parameters():
            leaf = name.split(".")[-1]
            is_norm = "norm" in name.lower() or "layernorm" in name.lower() or "ln_" in name
            if p.dim() == 1 and is_norm and leaf == "weight":
                base = 0.0 if gemma_norms else 1.0
                p.copy_(base + 0.2 * torch.randn(p.shape, generator=g))
            elif p.dim() == 1 and leaf == "bias":
                p.copy_(0.1 * torch.randn(p.shape, generator=g))


def save(model, tok, folder, dtype=None, shard=None):
    if os.path.exists(folder):
        shutil.rmtree(folder)
    if dtype is not None:
        model = model.to(dtype)
    kwargs = {"safe_serialization": True}
    if shard:
        kwargs["max_shard_size"] = shard
    model.save_pretrained(folder, **kwargs)
    tok.save(os.path.join(folder, "tokenizer.json"))
    # the float64 model is the one the hub folder holds: every weight as stored, widened exactly
    cls = type(model)
    return cls.from_pretrained(folder, dtype=torch.float64, attn_implementation="eager").eval()


def stack(attentions):
    return torch.stack([a[0] for a in attentions]).to(torch.float64).contiguous()  # [layer, head, query, key]


def write_expected(folder, tensors, meta):
    save_file(tensors, os.path.join(folder, "expected.safetensors"))
    meta["transformers"] = transformers.__version__
    meta["torch"] = torch.__version__
    with open(os.path.join(folder, "expected.json"), "w") as f:
        json.dump(meta, f, indent=1, ensure_ascii=False)
        f.write("\n")


def decoder(name, config, tok, text, dtype=None, shard=None, gemma=False, cls=None):
    torch.manual_seed(41)
    cls = cls or transformers.AutoModelForCausalLM
    model = cls.from_config(config, attn_implementation="eager")
    randomise(model, gemma_norms=gemma)
    folder = os.path.join(OUT, name)
    m = save(model, tok, folder, dtype, shard)
    enc = tok.encode(text)
    ids = torch.tensor([enc.ids])
    with torch.no_grad():
        out = m(input_ids=ids, output_attentions=True)
    att = stack(out.attentions)
    # the logits the app reads: the next token's after the last position (decoders), the [MASK]'s (ModernBERT)
    mask = tok.token_to_id("[MASK]")
    at = enc.ids.index(mask) if mask is not None and mask in enc.ids else len(enc.ids) - 1
    write_expected(folder, {"attention": att, "logits_at": out.logits[0, at].to(torch.float64).contiguous()},
                   {"family": config.model_type, "text": text, "ids": enc.ids, "tokens": enc.tokens,
                    "logits_position": at})
    print(f"{name}: {len(enc.ids)} tokens, maps {tuple(att.shape)}, largest entry off the first key "
          f"{att[..., 1:].max().item():.3f}")


def encoder_decoder(name, config, tok, source, target, dtype=None):
    torch.manual_seed(41)
    model = transformers.AutoModelForSeq2SeqLM.from_config(config, attn_implementation="eager")
    randomise(model)
    folder = os.path.join(OUT, name)
    m = save(model, tok, folder, dtype)
    s = tok.encode(source)
    t = tok.encode(target)  # the target with its tokenizer's own specials: the decoder's input as BertViz passes it
    with torch.no_grad():
        out = m(input_ids=torch.tensor([s.ids]), decoder_input_ids=torch.tensor([t.ids]), output_attentions=True)
    write_expected(folder, {"encoder_attention": stack(out.encoder_attentions),
                            "decoder_attention": stack(out.decoder_attentions),
                            "cross_attention": stack(out.cross_attentions),
                            "logits": out.logits[0].to(torch.float64).contiguous()},
                   {"family": config.model_type, "text": source, "target": target, "ids": s.ids, "tokens": s.tokens,
                    "target_ids": t.ids, "target_tokens": t.tokens})
    print(f"{name}: {len(s.ids)} source and {len(t.ids)} target tokens, mean largest entry of a row "
          + ", ".join(f"{k} {stack(v).amax(-1).mean().item():.3f}" for k, v in
                      (("encoder", out.encoder_attentions), ("decoder", out.decoder_attentions),
                       ("cross", out.cross_attentions))))


def main():
    os.makedirs(WORK, exist_ok=True)
    os.makedirs(OUT, exist_ok=True)
    text = "The cat sat on the mat near the door 12345."
    llama3_tok = byte_level(LLAMA3_SPLIT, ["<|begin_of_text|>", "<|end_of_text|>"],
                            ("<|begin_of_text|> $A", "<|begin_of_text|> $A <|begin_of_text|> $B"))
    v = llama3_tok.get_vocab_size()
    common = dict(vocab_size=v, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                  initializer_range=0.15, max_position_embeddings=128)
    c = transformers.LlamaConfig(**common, num_key_value_heads=2, tie_word_embeddings=False, rms_norm_eps=1e-5,
                                 rope_parameters={"rope_type": "llama3", "rope_theta": 10000.0, "factor": 8.0,
                                                  "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                                  "original_max_position_embeddings": 64},
                                 bos_token_id=0, eos_token_id=1)
    decoder("llama-bf16-sharded", c, llama3_tok, text, dtype=torch.bfloat16, shard="20KB")

    qwen_tok = byte_level(QWEN2_SPLIT, ["<|endoftext|>", "<|im_start|>", "<|im_end|>"], None)
    qwen_tok.normalizer = normalizers.NFC()
    c = transformers.Qwen2Config(**{**common, "vocab_size": qwen_tok.get_vocab_size()}, num_key_value_heads=2,
                                 tie_word_embeddings=True, rms_norm_eps=1e-6,
                                 rope_parameters={"rope_type": "default", "rope_theta": 1000000.0})
    decoder("qwen2-fp16-tied", c, qwen_tok, text, dtype=torch.float16)

    sp_tok = sentencepiece_bpe()
    c = transformers.MistralConfig(**{**common, "vocab_size": sp_tok.get_vocab_size()}, num_key_value_heads=1,
                                   sliding_window=3, rms_norm_eps=1e-5)
    decoder("mistral-window3", c, sp_tok, text + " Le café ☃")

    gemma_tok = sentencepiece_bpe(gemma=True)
    c = transformers.GemmaConfig(**{**common, "vocab_size": gemma_tok.get_vocab_size()}, num_key_value_heads=1,
                                 head_dim=12, hidden_act="gelu_pytorch_tanh", rms_norm_eps=1e-6,
                                 pad_token_id=0, bos_token_id=1, eos_token_id=2)
    decoder("gemma-headdim12-mqa", c, gemma_tok, text, dtype=torch.bfloat16, gemma=True)

    neox_tok = byte_level(None, ["<|endoftext|>", "<|padding|>"], None)
    for parallel in (True, False):
        c = transformers.GPTNeoXConfig(vocab_size=neox_tok.get_vocab_size(), hidden_size=32, intermediate_size=64,
                                       num_hidden_layers=2, num_attention_heads=4, initializer_range=0.2,
                                       max_position_embeddings=128, use_parallel_residual=parallel,
                                       rope_parameters={"rope_type": "default", "rope_theta": 10000.0,
                                                        "partial_rotary_factor": 0.25},
                                       bos_token_id=0, eos_token_id=0)
        decoder("gpt_neox-parallel" if parallel else "gpt_neox-sequential", c, neox_tok, text,
                dtype=torch.float16 if parallel else None)

    modern_tok = byte_level(None, ["[CLS]", "[SEP]", "[PAD]", "[UNK]"], ("[CLS] $A [SEP]", "[CLS] $A [SEP] $B [SEP]"),
                            lstrip_mask=True)
    c = transformers.ModernBertConfig(vocab_size=modern_tok.get_vocab_size(), hidden_size=32, intermediate_size=48,
                                      num_hidden_layers=3, num_attention_heads=4, initializer_range=0.2,
                                      max_position_embeddings=128, local_attention=4,
                                      layer_types=["full_attention", "sliding_attention", "full_attention"],
                                      rope_parameters={"full_attention": {"rope_type": "default", "rope_theta": 40000.0},
                                                       "sliding_attention": {"rope_type": "default", "rope_theta": 500.0}},
                                      pad_token_id=modern_tok.token_to_id("[PAD]"),
                                      cls_token_id=modern_tok.token_to_id("[CLS]"),
                                      sep_token_id=modern_tok.token_to_id("[SEP]"),
                                      bos_token_id=modern_tok.token_to_id("[CLS]"),
                                      eos_token_id=modern_tok.token_to_id("[SEP]"))
    decoder("modernbert-local4", c, modern_tok, "The cat sat on the [MASK] near the door.",
            cls=transformers.AutoModelForMaskedLM)

    t5_tok = t5_unigram()
    source, target = "The cat sat on the mat.", "A cat sat on a mat near the door."
    c = transformers.T5Config(vocab_size=t5_tok.get_vocab_size(), d_model=32, d_kv=6, d_ff=48, num_layers=2,
                              num_decoder_layers=2, num_heads=4, relative_attention_num_buckets=8,
                              relative_attention_max_distance=16, feed_forward_proj="relu", tie_word_embeddings=True,
                              initializer_factor=1.0, pad_token_id=0, eos_token_id=1, decoder_start_token_id=0)
    encoder_decoder("t5-relu-tied", c, t5_tok, source, target)
    c = transformers.T5Config(vocab_size=t5_tok.get_vocab_size(), d_model=32, d_kv=8, d_ff=40, num_layers=2,
                              num_decoder_layers=3, num_heads=4, relative_attention_num_buckets=8,
                              relative_attention_max_distance=16, feed_forward_proj="gated-gelu",
                              tie_word_embeddings=False, initializer_factor=1.0, pad_token_id=0, eos_token_id=1,
                              decoder_start_token_id=0)
    encoder_decoder("t5v11-gated-untied-bf16", c, t5_tok, source, target, dtype=torch.bfloat16)

    bart_tok = byte_level(None, ["<s>", "<pad>", "</s>", "<unk>"], ("<s> $A </s>", "<s> $A </s> </s> $B </s>"),
                          lstrip_mask=False)
    c = transformers.BartConfig(vocab_size=bart_tok.get_vocab_size(), d_model=32, encoder_layers=2, decoder_layers=2,
                                encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=48,
                                decoder_ffn_dim=48, max_position_embeddings=64, scale_embedding=True, init_std=0.15,
                                bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=2,
                                forced_eos_token_id=2)
    encoder_decoder("bart", c, bart_tok, source, target, dtype=torch.float16)


if __name__ == "__main__":
    sys.exit(main())
