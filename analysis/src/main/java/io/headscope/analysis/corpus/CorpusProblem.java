package io.headscope.analysis.corpus;

/**
 * A line that was skipped, and why (blank, malformed, too long). Reported, never fatal.
 *
 * @param line the 1-based line number
 * @param message one sentence for a person
 */
public record CorpusProblem(int line, String message) {
  @Override
  public String toString() {
    return "line " + line + ": " + message;
  }
}
