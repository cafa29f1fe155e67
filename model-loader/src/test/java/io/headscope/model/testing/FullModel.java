package io.headscope.model.testing;

import io.headscope.model.BertModel;
import io.headscope.model.store.ModelFiles;
import io.headscope.model.repository.ModelRepository;
import io.headscope.model.store.ProgressListener;

/**
 * The embedded bert-base-uncased, loaded once per test JVM (the few tests that need the real
 * model share it). Conversion goes to the user's standard cache, as the app's does.
 */
public final class FullModel {
  private static BertModel erf;
  private static BertModel tanh;

  private FullModel() {}

  public static synchronized ModelFiles files() {
    refuseInFastTier("the full bert-base model");
    return ModelRepository.standard().resolve(ModelRepository.DEFAULT_MODEL, ProgressListener.NONE);
  }

  /**
   * Fails a test that needs the full model (or TensorFlow's graph of it) when the run leaves the
   * full-model tier out ({@code ./headscope test fast}, {@code -Dheadscope.skipFullModel=true}): such a run
   * gets there only from a test class without {@code @Tag("full-model")}.
   */
  public static void refuseInFastTier(String what) {
    if ("fast".equals(System.getProperty("headscope.testTier")) || Boolean.getBoolean("headscope.skipFullModel")) {
      throw new IllegalStateException("This test loads " + what + " but its class has no @Tag(\"full-model\"), "
          + "so the fast tier (or -Dheadscope.skipFullModel=true) ran it; tag the class.");
    }
  }

  /** As Hugging Face configures it: exact (erf) GELU. */
  public static synchronized BertModel uncased() {
    if (erf == null) {
      erf = BertModel.load(files());
      Runtime.getRuntime().addShutdownHook(new Thread(erf::close));
    }
    return erf;
  }

  /** As Google trained and exported it: tanh GELU, for parity with TensorFlow's graph. */
  public static synchronized BertModel uncasedTanh() {
    if (tanh == null) {
      tanh = BertModel.load(files(), "gelu_new");
      Runtime.getRuntime().addShutdownHook(new Thread(tanh::close));
    }
    return tanh;
  }
}
