package io.headscope.analysis.hooks;

import io.headscope.model.BertModel;
import io.headscope.model.core.BertConfig;
import io.headscope.model.core.HeadScopeException;
import io.headscope.model.engine.Activation;
import io.headscope.model.engine.Capture;
import io.headscope.model.engine.HookPoint;
import io.headscope.model.engine.PointEdit;
import io.headscope.model.engine.Readouts;
import io.headscope.model.engine.RunRequest;
import io.headscope.model.engine.RunResult;
import io.headscope.model.tokenizer.Encoding;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * TransformerLens's {@code run_with_cache} and declarative {@code run_with_hooks} on the engine's typed hook points:
 * one forward pass of a batch, the activations asked for by TransformerLens's names (wildcards allowed) in its
 * shapes, and edits (zero, scale, set, add, the batch mean, another input's value) at chosen heads and positions,
 * run inside the engine ({@link PointEdit}). docs/NOTEBOOK.md lists the names and how they map.
 */
public final class HookRun {
  private HookRun() {}

  /**
   * One hook point under TransformerLens's name.
   *
   * @param name as TransformerLens spells it ({@code blocks.3.attn.hook_z}, 0-based layers)
   * @param point the engine's point
   */
  public record Name(String name, HookPoint point) {
    /** Whether TransformerLens's shape puts positions before heads where the engine has (B, H, T, dh): q, k, v, z. */
    public boolean positionsFirst() {
      return switch (point.kind()) {
        case ATTN_Q, ATTN_K, ATTN_V, ATTN_Z -> true;
        default -> false;
      };
    }
  }

  /**
   * A declarative edit, as the notebook writes it.
   *
   * @param hook a name or a pattern ({@code blocks.*.attn.hook_z})
   * @param rows the inputs of the batch, or null for all
   * @param heads the heads, 0-based, or null for all
   * @param positions the token positions, 0-based, or null for all
   * @param value the number of scale, set and add
   * @param sourceText for {@code patch_from}: the input whose value is patched in
   * @param sourcePair its second sentence, or null
   */
  public record Edit(String hook, PointEdit.Op op, int[] rows, int[] heads, int[] positions, float value,
      String sourceText, String sourcePair) {}

  /**
   * What a run gives back.
   *
   * @param inputs the encodings of the batch
   * @param width the padded length of the batch: every array's position axis
   * @param cache the activations asked for by name, in TransformerLens's shapes, batch first, padded to {@code width}
   * @param logProbs (B, width, vocab): the masked-LM (or next-token) log-probabilities at every position, or null
   * @param classes (B, labels): the classifier's probabilities, or null
   */
  public record Result(List<Encoding> inputs, int width, Map<String, Activation> cache, Activation logProbs,
      float[][] classes) {}

  /** Every name of a model with this config, in forward order: TransformerLens's names, then the engine's own aliases. */
  public static List<Name> all(BertConfig config) {
    List<Name> out = new ArrayList<>();
    for (HookPoint p : HookPoint.all(config)) {
      out.add(new Name(tlName(p, config), p));
    }
    return out;
  }

  static String tlName(HookPoint p, BertConfig config) {
    return switch (p.kind()) {
      case ATTN_SCORES -> "blocks." + p.layer() + ".attn.hook_attn_scores";
      case FINAL -> config.family().preLayerNorm() ? "ln_final.hook_normalized" : "hook_final";
      default -> p.name();
    };
  }

  /**
   * The points a name or pattern stands for: a TransformerLens name, the engine's own ({@code attn.hook_scores},
   * {@code hook_final}), or a pattern where {@code *} stands for any characters. A pattern that matches nothing is
   * an error listing the valid forms.
   */
  public static List<Name> resolve(String pattern, BertConfig config) {
    String p = pattern.strip();
    List<Name> out = new ArrayList<>();
    if (p.contains("*")) {
      String[] parts = p.split("\\*", -1);
      StringBuilder re = new StringBuilder();
      for (int i = 0; i < parts.length; i++) {
        re.append(i > 0 ? ".*" : "").append(Pattern.quote(parts[i]));
      }
      Pattern compiled = Pattern.compile(re.toString());
      for (Name n : all(config)) {
        if (compiled.matcher(n.name()).matches()) {
          out.add(n);
        }
      }
    } else {
      for (Name n : all(config)) {
        if (n.name().equals(p) || n.point().name().equals(p)) {
          out.add(new Name(p, n.point()));
        }
      }
    }
    if (out.isEmpty()) {
      int last = config.numHiddenLayers() - 1;
      throw new HeadScopeException("There is no hook point \"" + pattern + "\" in a model of " + config.numHiddenLayers()
          + " layers. Names are TransformerLens's: hook_embed, blocks.{0.." + last + "}.hook_resid_pre, "
          + "blocks.{l}.attn.hook_q|hook_k|hook_v|hook_attn_scores|hook_pattern|hook_z|hook_result, "
          + "blocks.{l}.hook_attn_out, blocks.{l}.hook_resid_mid, blocks.{l}.mlp.hook_pre|hook_post, "
          + "blocks.{l}.hook_mlp_out, blocks.{l}.hook_resid_post, "
          + (config.family().preLayerNorm() ? "ln_final.hook_normalized" : "hook_final")
          + "; * matches any characters (blocks.*.attn.hook_pattern).");
    }
    return out;
  }

  /**
   * A function called with the value at every point a pattern names, in TransformerLens's shape, during the pass;
   * it returns the value that flows on (the same object, or null, for unchanged). What Python's hook functions
   * become in the server.
   */
  public interface Callback {
    Activation at(Name name, Activation value);
  }

  /** A callback at the points a name or pattern stands for. */
  public record Hook(String pattern, Callback fn) {}

  /** Runs the batch once with the edits, keeping the named activations and, when asked, every position's log-probabilities. */
  public static Result run(BertModel bert, List<Encoding> inputs, List<String> cache, List<Edit> edits, boolean logits) {
    return run(bert, inputs, cache, edits, List.of(), logits);
  }

  /** {@link #run} with callbacks, applied after the declarative edits at each point, in the order given. */
  public static Result run(BertModel bert, List<Encoding> inputs, List<String> cache, List<Edit> edits,
      List<Hook> hooks, boolean logits) {
    BertConfig config = bert.config();
    Map<String, Name> wanted = new LinkedHashMap<>();
    for (String c : cache) {
      for (Name n : resolve(c, config)) {
        wanted.putIfAbsent(n.name(), n);
      }
    }
    RunRequest r = RunRequest.of(inputs);
    for (Capture c : captures(wanted.values())) {
      r = r.capture(c);
    }
    Map<String, RunResult> sources = new HashMap<>();
    for (Edit e : edits) {
      for (Name n : resolve(e.hook(), config)) {
        Activation source = null;
        if (e.op() == PointEdit.Op.PATCH) {
          source = sourceValue(bert, e, n, sources, edits);
        }
        r = r.intervene(new PointEdit(n.point(), e.op(), e.rows(), e.heads(), e.positions(), e.value(), source));
      }
    }
    for (Hook h : hooks) {
      for (Name n : resolve(h.pattern(), config)) {
        r = r.intervene(new io.headscope.model.engine.Intervention.Edit(n.point(), a -> {
          Activation shown = n.positionsFirst() ? swap12(a) : a;
          Activation back = h.fn().at(n, shown);
          if (back == null || back == shown) {
            return a;
          }
          if (!java.util.Arrays.equals(back.shape(), shown.shape())) {
            throw new HeadScopeException("The hook at " + n.name() + " returned shape "
                + java.util.Arrays.toString(back.shape()) + " for a value of shape " + java.util.Arrays.toString(shown.shape()) + ".");
          }
          return n.positionsFirst() ? swap12(back) : back;
        }));
      }
    }
    int width = inputs.stream().mapToInt(Encoding::length).max().orElse(0);
    boolean lm = logits && bert.hasMaskedLmHead();
    if (lm) {
      int[] all = new int[width];
      java.util.Arrays.setAll(all, i -> i);
      r = r.read(Readouts.none().withLogProbs(all));
    }
    if (logits && bert.hasClassifier()) {
      r = r.read((lm ? r.readouts() : Readouts.none()).withClassifier());
    }
    RunResult result = bert.run(r);
    Map<String, Activation> out = new LinkedHashMap<>();
    for (Name n : wanted.values()) {
      Activation a = result.cache().get(n.point());
      out.put(n.name(), n.positionsFirst() ? swap12(a) : a);
    }
    Activation lp = null;
    if (lm) {
      float[][][] x = result.logProbs();
      int vocab = x[0][0].length;
      float[] flat = new float[x.length * width * vocab];
      for (int b = 0; b < x.length; b++) {
        for (int t = 0; t < width; t++) {
          System.arraycopy(x[b][t], 0, flat, (b * width + t) * vocab, vocab);
        }
      }
      lp = new Activation(flat, new int[] {x.length, width, vocab});
    }
    return new Result(List.copyOf(inputs), result.width(), out, lp, result.classProbabilities());
  }

  /** The point's value in the patch's source run (one run per source input, keeping every point the edits patch from it). */
  private static Activation sourceValue(BertModel bert, Edit e, Name n, Map<String, RunResult> sources, List<Edit> edits) {
    if (e.sourceText() == null) {
      throw new HeadScopeException("patch_from at " + e.hook() + " needs the input to patch from.");
    }
    String key = e.sourceText() + "\u0000" + e.sourcePair();
    RunResult run = sources.get(key);
    if (run == null) {
      List<Name> points = new ArrayList<>();
      for (Edit other : edits) {
        if (other.op() == PointEdit.Op.PATCH && key.equals(other.sourceText() + "\u0000" + other.sourcePair())) {
          points.addAll(resolve(other.hook(), bert.config()));
        }
      }
      RunRequest r = RunRequest.of(bert.encode(e.sourceText(), e.sourcePair()));
      for (Capture c : captures(points)) {
        r = r.capture(c);
      }
      run = bert.run(r);
      sources.put(key, run);
    }
    return run.cache().get(n.point());
  }

  /** One capture per kind, for the layers asked (the engine keeps kinds x layers). */
  private static List<Capture> captures(Iterable<Name> names) {
    Map<HookPoint.Kind, Set<Integer>> layers = new LinkedHashMap<>();
    for (Name n : names) {
      layers.computeIfAbsent(n.point().kind(), k -> new TreeSet<>()).add(n.point().layer());
    }
    List<Capture> out = new ArrayList<>();
    for (var e : layers.entrySet()) {
      Set<Integer> ls = e.getValue();
      Capture c = new Capture(EnumSet.of(e.getKey()), Set.of(), ls.contains(-1) ? Set.of() : ls,
          Capture.Stage.AFTER_INTERVENTIONS);
      out.add(c);
    }
    return out;
  }

  /** (B, H, T, d) to (B, T, H, d): the engine's per-head layout to TransformerLens's. */
  static Activation swap12(Activation a) {
    int[] s = a.shape();
    int b = s[0];
    int h = s[1];
    int t = s[2];
    int d = s[3];
    float[] in = a.data();
    float[] out = new float[in.length];
    for (int i = 0; i < b; i++) {
      for (int j = 0; j < h; j++) {
        for (int k = 0; k < t; k++) {
          System.arraycopy(in, ((i * h + j) * t + k) * d, out, ((i * t + k) * h + j) * d, d);
        }
      }
    }
    return new Activation(out, new int[] {b, t, h, d});
  }
}
