package io.headscope.app.cli;

import io.headscope.model.core.HeadScopeException;

/** A bad command line (an option's value out of range, options that do not go together): exit 2. */
final class UsageException extends HeadScopeException {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * A list of heads given to an option, as a usage error when malformed or not in the model. An item
   * {@code @NAME} is a head set saved from the app ({@link io.headscope.model.store.HeadSets}, read only
   * when one is named).
   */
  static java.util.Set<io.headscope.model.core.Head> heads(String option, String spec, io.headscope.model.core.BertConfig c) {
    try {
      return io.headscope.model.store.HeadSets.parse(spec, c.numHiddenLayers(), c.numAttentionHeads(),
          () -> io.headscope.model.store.HeadSets.read(io.headscope.model.store.HeadSets.standardFile()));
    } catch (HeadScopeException e) {
      throw new UsageException(option + ": " + e.getMessage(), e);
    }
  }

  /** The --metric of a target sweep, as a usage error when unknown. */
  static io.headscope.analysis.ablation.TargetMetric.Kind metric(String metric) {
    try {
      return io.headscope.analysis.ablation.TargetMetric.Kind.parse(metric);
    } catch (HeadScopeException e) {
      throw new UsageException("--metric: " + e.getMessage(), e);
    }
  }

  /** The off mode of --mode, as a usage error when unknown. */
  static io.headscope.model.core.HeadMask.Mode mode(String mode) {
    try {
      return io.headscope.model.core.HeadMask.Mode.parse(mode);
    } catch (HeadScopeException e) {
      throw new UsageException("--mode: " + e.getMessage(), e);
    }
  }
}
