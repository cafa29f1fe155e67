package io.headscope.analysis.circuits;

import io.headscope.model.store.ModelFiles;
import io.headscope.model.testing.families.TinyFamilyCheckpoint;
import io.headscope.model.tokenizer.HandTokenizers;
import io.headscope.model.tokenizer.TextEncoder;
import io.headscope.model.tokenizer.TextEncoders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Random;

/**
 * A two-layer GPT-2 whose induction circuit is known by construction (docs/CAUSAL.md, "An induction circuit
 * planted by hand"): the weights are set by hand, not trained, and written as a hub folder ({@code config.json},
 * {@code model.safetensors}, a byte-level BPE {@code tokenizer.json}) that every command reads.
 *
 * <p>The residual stream (d = 512) is cut into subspaces: {@code TOK} (dims 0-127) holds the token's code, a
 * random +-1/sqrt(128) vector per vocabulary entry (the word embeddings, tied to the unembedding); {@code POS}
 * (128-191) a one-hot position (64 positions); {@code PREV} (192-207) is where the previous-token head writes. With
 * every LayerNorm's gain 1 and shift 0, a LayerNorm only rescales (the codes have near-zero mean), so:
 * <ul>
 *   <li><b>previous-token head</b> {@code 1-2} (layer 0, head 1): query = position i moved to coordinate i - 1,
 *       key = position j at coordinate j, so each query attends to the token before it; its OV copies the first
 *       {@link #SUB} coordinates of the token's code into {@code PREV};
 *   <li><b>induction head</b> {@code 2-3} (layer 1, head 2): query = the current token's first {@link #SUB}
 *       code coordinates, key = {@code PREV} (K-composition with 1-2: a key matches where the token before it
 *       is the current token), value = the whole code, written back into {@code TOK}: the logits of the token
 *       that followed the earlier occurrence rise;
 *   <li>the other six heads: small seeded random weights (distractors); the MLPs are zero.
 * </ul>
 * What follows from this alone, and what {@link InductionCircuitTest} checks the tools against: the K-composition
 * of 1-2 into 2-3 is {@code ||A B^T||_F / (||A||_F ||B||_F) = 1/sqrt(SUB) = 0.25} (both products are SUB x SUB
 * scaled identities between TOK and PREV), their Q- and V-composition 0; on repeated random tokens 1-2 is a
 * previous-token head, 2-3 an induction head, and the second half is predicted.
 *
 * <p>Rebuild the folder: {@code mvn -B -o -q -pl analysis -am -Dtest=InductionCircuitTest
 * -Dsurefire.failIfNoSpecifiedTests=false -Dheadscope.induction.out=DIR test}.
 */
public final class InductionModel {
  public static final int HIDDEN = 512;
  public static final int HEADS = 4;
  public static final int HEAD_SIZE = HIDDEN / HEADS;
  public static final int POSITIONS = 64;
  /** The token code's width, and the first dim of POS. */
  public static final int CODE = 128;
  /** The first dim of PREV. */
  public static final int PREV = CODE + POSITIONS;
  /** How many code coordinates the previous-token head passes on and the induction head matches. */
  public static final int SUB = 16;
  /** The previous-token head: layer 0, head 1 (0-based); {@code 1-2} as the CLI writes heads. */
  public static final int PT_LAYER = 0;
  public static final int PT_HEAD = 1;
  /** The induction head: layer 1, head 2; {@code 2-3}. */
  public static final int IND_LAYER = 1;
  public static final int IND_HEAD = 2;

  /** The query-key and value-output scales (why these: the class comment of the test and CAUSAL.md). */
  static final float PT_Q = 1f;
  static final float PT_K = 1f;
  static final float PT_OUT = 0.18f;
  static final float IND_Q = 2f;
  static final float IND_K = 3.5f;
  static final float IND_OUT = 0.3f;
  static final double DISTRACT_QK = 0.05;
  static final double DISTRACT_VO = 0.01;

  private InductionModel() {}

  /** Writes the folder into {@code dir} and returns its files. */
  public static ModelFiles write(Path dir, long seed) {
    try {
      Files.createDirectories(dir);
      Path scratch = Files.createTempDirectory(dir.toAbsolutePath().getParent(), ".tok");
      Path tokenizer = HandTokenizers.gpt2(scratch);
      int vocab;
      try (TextEncoder t = TextEncoders.open(tokenizer, POSITIONS)) {
        vocab = t.vocabSize();
      }
      TinyFamilyCheckpoint c = TinyFamilyCheckpoint.create("gpt2",
          new TinyFamilyCheckpoint.Shape(vocab, HIDDEN, HIDDEN, 2, HEADS, 8, POSITIONS), seed).fillAll(0f);
      Random r = new Random(seed);
      float[][] codes = codes(r, vocab);
      c.edit("transformer.wte.weight", w -> {
        for (int v = 0; v < vocab; v++) {
          System.arraycopy(codes[v], 0, w, v * HIDDEN, CODE);
        }
      });
      c.edit("transformer.wpe.weight", w -> {
        for (int p = 0; p < POSITIONS; p++) {
          w[p * HIDDEN + CODE + p] = 1f;
        }
      });
      for (String ln : new String[] {"transformer.h.0.ln_1", "transformer.h.0.ln_2", "transformer.h.1.ln_1",
          "transformer.h.1.ln_2", "transformer.ln_f"}) {
        c.edit(ln + ".weight", w -> java.util.Arrays.fill(w, 1f));
      }
      for (int l = 0; l < 2; l++) {
        String p = "transformer.h." + l + ".attn.";
        int layer = l;
        c.edit(p + "c_attn.weight", w -> {
          for (int h = 0; h < HEADS; h++) {
            boolean pt = layer == PT_LAYER && h == PT_HEAD;
            boolean ind = layer == IND_LAYER && h == IND_HEAD;
            if (pt) {
              for (int pos = 0; pos < POSITIONS; pos++) {
                if (pos >= 1) {
                  w[qkv(0, h, CODE + pos, pos - 1)] = PT_Q; // query of position pos looks for pos - 1
                }
                w[qkv(1, h, CODE + pos, pos)] = PT_K;
              }
              for (int m = 0; m < SUB; m++) {
                w[qkv(2, h, m, m)] = 1f;
              }
            } else if (ind) {
              for (int m = 0; m < SUB; m++) {
                w[qkv(0, h, m, m)] = IND_Q;
                w[qkv(1, h, PREV + m, m)] = IND_K;
              }
              for (int m = 0; m < CODE; m++) {
                w[qkv(2, h, m, m)] = 1f;
              }
            } else {
              for (int part = 0; part < 3; part++) {
                double s = part < 2 ? DISTRACT_QK : DISTRACT_VO;
                for (int e = 0; e < HIDDEN; e++) {
                  for (int k = 0; k < HEAD_SIZE; k++) {
                    w[qkv(part, h, e, k)] = (float) (r.nextGaussian() * s);
                  }
                }
              }
            }
          }
        });
        c.edit(p + "c_proj.weight", w -> {
          for (int h = 0; h < HEADS; h++) {
            for (int k = 0; k < HEAD_SIZE; k++) {
              int row = (h * HEAD_SIZE + k) * HIDDEN;
              if (layer == PT_LAYER && h == PT_HEAD) {
                if (k < SUB) {
                  w[row + PREV + k] = PT_OUT;
                }
              } else if (layer == IND_LAYER && h == IND_HEAD) {
                if (k < CODE) {
                  w[row + k] = IND_OUT;
                }
              } else {
                for (int e = 0; e < HIDDEN; e++) {
                  w[row + e] = (float) (r.nextGaussian() * DISTRACT_VO);
                }
              }
            }
          }
        });
      }
      c.writeTo(dir);
      Files.copy(tokenizer, dir.resolve("tokenizer.json"), StandardCopyOption.REPLACE_EXISTING);
      Files.deleteIfExists(tokenizer);
      Files.deleteIfExists(scratch);
      return new ModelFiles("induction-tiny", dir.resolve("config.json"), dir.resolve("model.safetensors"),
          dir.resolve("tokenizer.json"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Every token's code, +-1/sqrt(CODE) each, drawn first from the seed. */
  private static float[][] codes(Random r, int vocab) {
    float inv = (float) (1 / Math.sqrt(CODE));
    float[][] out = new float[vocab][CODE];
    for (int v = 0; v < vocab; v++) {
      for (int m = 0; m < CODE; m++) {
        out[v][m] = r.nextBoolean() ? inv : -inv;
      }
    }
    return out;
  }

  /** The codes {@link #write} gives a vocabulary of {@code vocab} tokens with this seed. */
  public static float[][] codes(int vocab, long seed) {
    return codes(new Random(seed), vocab);
  }

  /**
   * The index in {@code c_attn.weight} (Conv1D, (in, 3 d): queries, keys, values side by side, head h's block of
   * each at {@code h * HEAD_SIZE}) of input dim {@code in} into head coordinate {@code k} of part 0 (q), 1 (k), 2 (v).
   */
  private static int qkv(int part, int h, int in, int k) {
    return in * 3 * HIDDEN + part * HIDDEN + h * HEAD_SIZE + k;
  }
}
