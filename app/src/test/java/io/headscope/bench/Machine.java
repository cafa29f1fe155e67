package io.headscope.bench;

import io.headscope.model.BertModel;
import io.headscope.model.testing.Cpu;

/**
 * The line every benchmark prints about the machine it ran on: the CPU, MKL's mode and whether the
 * engine measured its products as batch-invariant there, which decides whether the sweeps batch inputs
 * (docs/PERFORMANCE.md, "Batch invariance"), so figures from two machines can be told apart.
 */
final class Machine {
  private Machine() {}

  static String describe(BertModel model) {
    boolean invariant = model.batchInvariant();
    return String.format(java.util.Locale.ROOT, "CPU %s, MKL_CBWR=%s, batch-invariant products: %s", Cpu.describe(),
        System.getenv("MKL_CBWR"), invariant ? "yes (the sweeps batch inputs of one length)"
            : "no (the sweeps run one input at a time)");
  }

  static void print(BertModel model) {
    System.out.println(describe(model));
  }
}
