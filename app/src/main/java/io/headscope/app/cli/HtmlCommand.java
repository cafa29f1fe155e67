package io.headscope.app.cli;

import io.headscope.analysis.heads.HeadClassifier;
import io.headscope.app.render.page.InteractivePage;
import io.headscope.app.render.page.PageData;
import io.headscope.model.BertModel;
import io.headscope.model.core.Head;
import io.headscope.model.core.HeadMask;
import io.headscope.analysis.export.NpzReader;
import io.headscope.app.render.page.ArrayPage;
import io.headscope.model.core.HeadScopeException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(name = "html", mixinStandardHelpOptions = true,
    description = "One self-contained HTML page for one input that opens offline in any browser: BertViz's head "
        + "view, every head as a thumbnail, the neuron view (q, k, q*k, q.k/sqrt(dh), softmax), each head's "
        + "category, and with --disable the predictions before -> after and the maps intact / as run / difference. "
        + "With --arrays FILE.npz instead of --text: the page for attention of any model, as BertViz's head_view "
        + "takes it (arrays tokens, attention (layer, head, query, key), or the encoder-decoder ones). An encoder-decoder "
        + "(T5, BART) with --text SOURCE --target TARGET: its encoder, decoder and cross maps, switched between on the page.")
final class HtmlCommand implements Callable<Integer> {
  @Option(names = "--text", paramLabel = "TEXT", description = "The sentence (segment a); [MASK] marks words to predict.")
  String text;

  @Option(names = "--pair", paramLabel = "TEXT", description = "A second sentence (segment b).")
  String pair;

  @Option(names = "--arrays", paramLabel = "FILE.npz",
      description = "Draw attention given as arrays instead of running the model (no model is loaded): a .npz with "
          + "tokens and attention (layer, head, query, key), optionally sentence_b_start, include_layers, include_heads, "
          + "layer, heads, view; or encoder_attention, decoder_attention, cross_attention with encoder_tokens and "
          + "decoder_tokens. docs/NOTEBOOK.md.")
  Path arrays;

  @Option(names = "--disable", paramLabel = "HEADS",
      description = "Heads to switch off, 1-based layer-head, comma-separated: 5-4,8-10; 7 or 7-* is all of layer 7; "
          + "@NAME is a head set saved from the app (README: Head sets).")
  String disable;

  @Option(names = "--mode", defaultValue = "zero", paramLabel = "zero|uniform",
      description = "zero: multiply the head's attention by 0; uniform: spread it evenly over the tokens.")
  String mode;

  @Mixin HtmlOutput output;

  @Option(names = "--circuit", paramLabel = "CORRUPTED",
      description = "Add the circuit graph (a Circuit tab, drawn offline as SVG): every edge between the --text and "
          + "this corrupted input (same length, a cue changed) scored by EAP, the top --circuit-top drawn by layer, "
          + "the first 5 with their exact patch beside the estimate. Needs --target and --contrast.")
  String circuit;

  // --target is the encoder-decoders' option (EncoderDecoderOptions): with --circuit it names the word followed at
  // [MASK] instead, as patch's --target does; the circuit is refused on encoder-decoders, so the two never meet.

  @Option(names = "--contrast", paramLabel = "WORD", description = "With --circuit: the metric is the logit difference "
      + "target - contrast.")
  String contrast;

  @Option(names = "--circuit-top", defaultValue = "40", paramLabel = "N",
      description = "With --circuit: how many edges are drawn (default 40).")
  int circuitTop;

  /** The edges of the page's circuit whose exact patch is run beside the estimate. */
  static final int CIRCUIT_CHECKS = 5;

  @Mixin ModelOptions model;

  @Mixin EncoderDecoderOptions twoStacks;

  @Override
  public Integer call() {
    if (arrays != null) {
      return fromArrays();
    }
    if (text == null) {
      throw new UsageException("Give --text (a sentence to run) or --arrays FILE.npz (attention to draw).");
    }
    ModelOptions.requireText(text, "--text");
    if (pair != null) {
      ModelOptions.requireText(pair, "--pair");
    }
    Warnings.lowerCaseMask(text);
    Warnings.lowerCaseMask(pair);
    String target = twoStacks.target;
    if (circuit != null ? target == null || contrast == null : contrast != null) {
      throw new UsageException(circuit == null ? "--contrast goes with --circuit CORRUPTED (and --target WORD)."
          : "--circuit needs --target WORD and --contrast WORD: the metric is their logit difference at [MASK].");
    }
    if (circuit != null && (circuitTop < 1 || pair != null)) {
      throw new UsageException(circuitTop < 1 ? "--circuit-top must be 1 or more."
          : "--circuit runs one input against its corrupted copy: leave out --pair.");
    }
    output.check();
    HeadMask.Mode m = UsageException.mode(mode);
    twoStacks.check();
    if (twoStacks.given() && circuit == null) {
      if (pair != null || disable != null) {
        throw new UsageException("--target (an encoder-decoder's source and target) goes without --pair and --disable: "
            + "switch heads off with --disable-encoder, --disable-decoder and --disable-cross.");
      }
      try (io.headscope.model.EncoderDecoderModel ed = twoStacks.open(model)) {
        io.headscope.model.EncoderDecoderTrace t = ed.trace(text, twoStacks.target, twoStacks.mask(ed.config(), m), 0);
        Warnings.truncation(t.source());
        Warnings.truncation(t.target());
        byte[] html = ArrayPage.of(t, new HeadClassifier()).html(ed.name());
        output.write(o -> o.write(html));
      }
      return 0;
    }
    try (BertModel bert = model.open()) {
      Set<Head> off = UsageException.heads("--disable", disable, bert.config());
      PageData d = PageData.build(bert, text, pair, HeadMask.of(off, m), new HeadClassifier());
      Warnings.truncation(d.intact().encoding());
      output.write(InteractivePage.content(d, circuit == null ? null : circuit(bert)));
    }
    return 0;
  }

  /** EAP over every edge between --text and --circuit, the top edges with the first few patched exactly. */
  private io.headscope.app.render.page.CircuitPart circuit(BertModel bert) {
    long[] tc = bert.tokenizer().targetAndContrast(twoStacks.target, contrast);
    var metric = new io.headscope.analysis.ablation.TargetMetric(
        io.headscope.analysis.ablation.TargetMetric.Kind.LOGIT_DIFF, tc[0], tc[1]);
    var in = io.headscope.analysis.causal.PatchInputs.of(bert, text, circuit);
    var a = io.headscope.analysis.circuits.EdgeAnalysis.of(bert, in, metric,
        io.headscope.analysis.circuits.Ablation.CORRUPTED, java.util.List.of());
    return io.headscope.app.render.page.CircuitPart.of(a, a.eap(), bert.config().numHiddenLayers(),
        bert.config().numAttentionHeads(), circuitTop, CIRCUIT_CHECKS);
  }

  private Integer fromArrays() {
    if (text != null || pair != null || disable != null) {
      throw new UsageException("--arrays draws the arrays it is given: leave out --text, --pair and --disable.");
    }
    output.check();
    Map<String, NpzReader.Array> read;
    try (InputStream in = Files.newInputStream(arrays)) {
      read = NpzReader.read(in);
    } catch (NoSuchFileException e) {
      throw new HeadScopeException("The arrays file " + arrays + " does not exist.");
    } catch (IOException e) {
      throw new HeadScopeException("Cannot read " + arrays + ": " + e.getMessage());
    }
    ArrayPage page = ArrayPage.of(read, new HeadClassifier());
    String title = arrays.getFileName() == null ? "arrays" : arrays.getFileName().toString();
    byte[] html = page.html(title);
    output.write(o -> o.write(html));
    return 0;
  }
}
