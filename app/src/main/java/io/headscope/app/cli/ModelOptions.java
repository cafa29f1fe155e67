package io.headscope.app.cli;

import io.headscope.model.BertModel;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ModelFiles;
import picocli.CommandLine.Option;

/** The options every command that runs a model shares. */
final class ModelOptions {
  @Option(names = "--model", paramLabel = "M", defaultValue = ModelRepository.DEFAULT_MODEL,
      description = "bert-base-uncased (default), bert-base-cased, bert-base-multilingual-cased, all-MiniLM-L6-v2, "
          + "hf:owner/name[@revision] from the Hugging Face Hub (downloaded once into the cache), "
          + "a Hugging Face folder of BERT, RoBERTa, XLM-R, DistilBERT, ELECTRA, ALBERT, ModernBERT, GPT-2, GPT-NeoX "
          + "(Pythia), Llama, Qwen2, Mistral, Gemma, T5 or BART (config.json, model.safetensors or its shards with "
          + "model.safetensors.index.json, and tokenizer.json, vocab.json + merges.txt or vocab.txt), "
          + "or a BERT exported to ONNX (a .onnx file with tokenizer.json beside it or in the folder above).")
  String model;

  @Option(names = "--offline",
      description = "Use only cached models, never the network (also -Dheadscope.offline=true or HEADSCOPE_OFFLINE=1).")
  boolean offline;

  @Option(names = "--gelu", paramLabel = "ACT",
      description = "Override the config's activation: gelu (erf, Hugging Face) or gelu_new (tanh, Google).")
  String gelu;

  /**
   * The model {@code headscope serve} loaded once, as it was named and its {@code --gelu}; null on the
   * command line. A command that opens this same model gets a borrowed view of it, whose close leaves it
   * loaded for the next request ({@link BertModel#borrowed}). An encoder-decoder (T5, BART) is served as
   * {@code pair} instead, {@code model} then null: the commands with {@code --target} borrow it
   * ({@link EncoderDecoderOptions#open}); the others load the folder as a single stack, which refuses it in one
   * line ({@link io.headscope.model.core.EncoderDecoderConfig#notOneStack}).
   */
  record Served(String spec, String gelu, BertModel model, io.headscope.model.EncoderDecoderModel pair) {}

  private static volatile Served served;

  static void serve(Served s) {
    served = s;
  }

  BertModel open() {
    return open(model);
  }

  /**
   * Another model named the same ways as {@code --model} (e.g. compare's {@code --with}), opened with
   * the same {@code --offline} and {@code --gelu}.
   */
  BertModel open(String spec) {
    Served s = served;
    if (s != null && s.model() != null && s.spec().equals(spec) && java.util.Objects.equals(s.gelu(), gelu)) {
      return s.model().borrowed();
    }
    return BertModel.load(files(spec), gelu);
  }

  /** The encoder-decoder {@code headscope serve} loaded, if it serves one named {@code spec}; else null. */
  static io.headscope.model.EncoderDecoderModel servedPair(String spec) {
    Served s = served;
    return s != null && s.pair() != null && s.spec().equals(spec) ? s.pair().borrowed() : null;
  }

  /** The model's files (downloaded or converted once into the cache if need be), not loaded. */
  ModelFiles files() {
    return files(model);
  }

  /** The files of a model named as {@code --model} is, not loaded. */
  ModelFiles files(String spec) {
    if (gelu != null) {
      try {
        io.headscope.model.core.BertConfig.Gelu.of(gelu);
      } catch (HeadScopeException e) {
        throw new UsageException("--gelu \"" + gelu + "\" is unknown: use gelu (erf) or gelu_new (tanh).", e);
      }
    }
    // The display starts with the first event, so a cached model (no download, no conversion) prints nothing.
    ProgressDisplay[] display = {null};
    try {
      return ModelRepository.standard().offline(offline).resolve(spec, (stage, f) -> {
        if (display[0] == null) {
          display[0] = ProgressDisplay.start("model");
        }
        display[0].progress(stage, f);
      });
    } finally {
      if (display[0] != null) {
        display[0].close();
      }
    }
  }

  /**
   * The checks of a command that reads either a corpus file or one typed input (--text, with --pair):
   * exactly one of the two, --pair only with --text, and typed text that is usable.
   */
  static void requireCorpusOrText(java.nio.file.Path corpus, String text, String pair) {
    if ((corpus == null) == (text == null)) {
      throw new UsageException("Give either --corpus FILE or --text \"...\" (one of them, not both).");
    }
    if (pair != null && text == null) {
      throw new UsageException("--pair goes with --text; a corpus file holds its pairs on each line.");
    }
    if (text != null) {
      requireText(text, "--text");
      if (pair != null) {
        requireText(pair, "--pair");
      }
    }
  }

  static void requireText(String text, String option) {
    if (text == null || text.isBlank()) {
      throw new HeadScopeException("The text of " + option + " is empty: give a sentence.");
    }
  }
}
