package io.headscope.model.store;

/** Hears how a long step (conversion, download, corpus run) is going. Called from the worker thread. */
@FunctionalInterface
public interface ProgressListener {
  ProgressListener NONE = (stage, fraction) -> {};

  /**
   * @param stage what is happening, for a person ("Converting bert-base-uncased")
   * @param fraction 0 to 1, or a negative number when the amount of work is unknown
   */
  void progress(String stage, double fraction);
}
